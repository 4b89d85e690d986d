import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loginUser, publishFixtures, spawnRegistry, type SpawnedRegistry } from '@pkg/testkit';

/**
 * The verification of `npm run release` (README, "Releases"): what scripts/release.js wrote into
 * release/ is checked as a user receives it. Each tarball is installed alone into its own empty
 * prefix (so nothing can resolve from this repository), the installed server is started and
 * serves a package, the installed client finds it and the single executable, with an empty PATH,
 * reads it.
 */
const run = promisify(execFile);
const root = fileURLToPath(new URL('../../', import.meta.url));
const releaseDir = path.join(root, 'release');
const { version } = JSON.parse(await readFile(path.join(root, 'package.json'), 'utf8')) as { version: string };
const executableName = `pkg-${process.platform}-${process.arch}${process.platform === 'win32' ? '.exe' : ''}`;
/** The executables for other systems (other-platforms.test.ts checks them). */
const otherExecutables = ['pkg-win32-x64.exe', 'pkg-darwin-x64'].filter((name) => name !== executableName);
const PROGRAMS = [
  { name: 'pkg-registry-server', bin: 'pkg-registry' },
  { name: 'pkg-registry-client', bin: 'pkg' },
] as const;

interface LockEntry {
  version?: string;
  dev?: boolean;
  optional?: boolean;
  inBundle?: boolean;
}

const scratch: string[] = [];
const prefixes = new Map<string, string>();
let registry: SpawnedRegistry | undefined;

async function tempDir(label: string): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), `pkg-release-${label}-`));
  scratch.push(dir);
  return dir;
}

/**
 * The environment of an installed program: this process's, without anything that points at this
 * repository (npm's run-script variables, NODE_PATH) or at a developer's pkg settings, with a
 * home of its own.
 */
async function isolatedEnv(): Promise<NodeJS.ProcessEnv> {
  const home = await tempDir('home');
  return { ...installEnv(), HOME: home, PKG_CONFIG_DIR: path.join(home, 'config'), PKG_CACHE_DIR: path.join(home, 'cache') };
}

/** npm's environment for an install: the machine's npm configuration (its home) is kept. */
function installEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (!name.startsWith('PKG_') && !name.startsWith('npm_') && name !== 'NODE_PATH') env[name] = value;
  }
  return env;
}

async function tarEntries(tarball: string): Promise<string[]> {
  const { stdout } = await run('tar', ['-tzf', tarball], { maxBuffer: 64 * 1024 * 1024 });
  return stdout.split('\n').filter(Boolean);
}

async function packedManifest(tarball: string): Promise<Record<string, unknown>> {
  const { stdout } = await run('tar', ['-xzOf', tarball, 'package/package.json']);
  return JSON.parse(stdout) as Record<string, unknown>;
}

describe('npm run release', () => {
  beforeAll(async () => {
    // Every tarball is installed alone, from a directory outside the repository.
    for (const program of PROGRAMS) {
      const prefix = await tempDir(program.bin);
      await run(
        'npm',
        [
          'install',
          '--global',
          '--prefix',
          prefix,
          '--no-audit',
          '--no-fund',
          path.join(releaseDir, `${program.name}-${version}.tgz`),
        ],
        {
          cwd: prefix,
          env: installEnv(),
          maxBuffer: 64 * 1024 * 1024,
        },
      );
      prefixes.set(program.bin, prefix);
    }
  });

  afterAll(async () => {
    await registry?.cleanup();
    for (const dir of scratch) await rm(dir, { recursive: true, force: true });
  });

  it('writes one tarball per program and the single executables, nothing else', async () => {
    const files = (await readdir(releaseDir)).sort();
    expect(files).toEqual([executableName, ...otherExecutables, ...PROGRAMS.map((p) => `${p.name}-${version}.tgz`)].sort());
    expect((await stat(path.join(releaseDir, executableName))).mode & 0o111).not.toBe(0);
  });

  it.each(PROGRAMS)(
    '$name: stamped with the release version, @pkg/protocol bundled, no build bookkeeping',
    async ({ name, bin }) => {
      const tarball = path.join(releaseDir, `${name}-${version}.tgz`);
      const manifest = await packedManifest(tarball);
      const rootManifest = JSON.parse(await readFile(path.join(root, 'package.json'), 'utf8')) as { engines: unknown };
      expect(manifest).toMatchObject({
        name,
        version,
        engines: rootManifest.engines,
        bundleDependencies: ['@pkg/protocol'],
        dependencies: expect.objectContaining({ '@pkg/protocol': version }) as unknown,
      });
      expect(Object.keys(manifest.bin as Record<string, string>)).toContain(bin);
      // Nothing may point back at this repository.
      expect(JSON.stringify(manifest.dependencies)).not.toMatch(/file:|workspace:|link:/);
      const entries = await tarEntries(tarball);
      expect(entries).toContain('package/node_modules/@pkg/protocol/package.json');
      expect(entries).toContain('package/node_modules/@pkg/protocol/dist/index.js');
      expect(entries).toContain('package/README.md');
      expect(entries).toContain('package/npm-shrinkwrap.json');
      expect(entries.filter((entry) => entry.endsWith('.tsbuildinfo'))).toEqual([]);
      expect(entries.filter((entry) => entry.includes('/src/') && entry.endsWith('.ts') && !entry.endsWith('.d.ts'))).toEqual([]);
    },
  );

  it.each(PROGRAMS)('$name: its npm-shrinkwrap.json pins the dependency tree of package-lock.json', async ({ name }) => {
    const { stdout } = await run('tar', [
      '-xzOf',
      path.join(releaseDir, `${name}-${version}.tgz`),
      'package/npm-shrinkwrap.json',
    ]);
    const shrinkwrap = JSON.parse(stdout) as { packages: Record<string, LockEntry> };
    const lock = JSON.parse(await readFile(path.join(root, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, LockEntry>;
    };
    const workspace = name === 'pkg-registry-server' ? 'packages/server' : 'packages/cli';
    const pinned = Object.entries(shrinkwrap.packages).filter(([location, entry]) => location !== '' && !entry.inBundle);
    expect(pinned.length).toBeGreaterThan(10);
    for (const [location, entry] of pinned) {
      // The version the tests ran with: the lockfile's, under the workspace or hoisted.
      const tested = lock.packages[`${workspace}/${location}`] ?? lock.packages[location];
      expect(entry.version, location).toBe(tested?.version);
      expect(entry.dev, location).toBeUndefined();
    }
  });

  it('installed programs and the single executable print the release version', async () => {
    const env = await isolatedEnv();
    for (const program of PROGRAMS) {
      const { stdout } = await run(path.join(prefixes.get(program.bin)!, 'bin', program.bin), ['--version'], { env });
      expect(stdout, program.bin).toBe(`${version}\n`);
    }
    const { stdout } = await run(path.join(releaseDir, executableName), ['--version'], { env });
    expect(stdout).toBe(`${version}\n`);
  });

  it('the installed server serves a package that the installed client and the single executable read', async () => {
    registry = await spawnRegistry({
      command: { file: path.join(prefixes.get('pkg-registry')!, 'bin', 'pkg-registry'), args: ['serve'] },
      cwd: await tempDir('serve'),
      // As an operator's shell starts it: no thread pool size of this process's own, and the
      // relaunch with its options left on (the test kit turns it off for the servers it spawns).
      env: { UV_THREADPOOL_SIZE: '', PKG_REGISTRY_RELAUNCH: '' },
    });
    // npm's bin link starts a plain node: the program gives itself the process options of
    // docs/operations.md ("Memory") and names them on its start-up line.
    const listening = await registry.waitForLog((entry) => entry.msg === 'pkg-registry listening');
    expect(listening.node).toMatchObject({
      options: ['--max-semi-space-size=2', '--heap-growing-percent=20', '--no-concurrent-recompilation'],
      threadPool: 8,
    });
    const token = await loginUser(registry.url, 'releaser');
    await publishFixtures(registry.url, token, {
      'com.acme.released': [{ version: '1.2.3', manifest: { displayName: 'Released', unity: '2022.3' } }],
    });
    const env = await isolatedEnv();
    const installed = await run(
      path.join(prefixes.get('pkg')!, 'bin', 'pkg'),
      ['search', 'released', '--registry', registry.url, '--json'],
      {
        env,
      },
    );
    expect((JSON.parse(installed.stdout) as { results: { name: string }[] }).results.map((r) => r.name)).toEqual([
      'com.acme.released',
    ]);
    // The single executable needs no Node.js: nothing on the PATH.
    const single = await run(
      path.join(releaseDir, executableName),
      ['info', 'com.acme.released', '--registry', registry.url, '--json'],
      {
        env: { ...env, PATH: '' },
      },
    );
    expect(JSON.parse(single.stdout)).toMatchObject({ name: 'com.acme.released', version: '1.2.3' });
  });
});
