import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PackageDocument } from '@pkg/protocol';
import { loginUser, NpmClient, startRegistry, systemNpmCli, type TestRegistry } from '@pkg/testkit';
import { makeHome, runPkg, runPkgInPty, type Home } from '../support/spawn.js';

// The built `pkg publish` against a real registry, and real npm installing what it published.
let registry: TestRegistry;
let home: Home;
let token: string;
let work: string;

beforeAll(async () => {
  registry = await startRegistry();
  token = await loginUser(registry.url, 'unity-publisher');
  home = await makeHome();
  work = await mkdtemp(path.join(tmpdir(), 'pkg-publish-test-'));
});
afterAll(async () => {
  await registry?.close();
  await rm(work, { recursive: true, force: true });
});

const meta = (guid: string) => `fileFormatVersion: 2\nguid: ${guid.padEnd(32, '0')}\n`;

/** A Unity package folder as the Editor leaves it: every file and folder with its .meta. */
async function unityPackage(name: string, version: string, extra: Record<string, unknown> = {}): Promise<string> {
  const dir = path.join(work, `${name}-${version}`);
  const files: Record<string, string> = {
    'package.json': `${JSON.stringify(
      { name, version, displayName: 'Example Tool', unity: '2022.3', unityRelease: '10f1', description: 'A tool', ...extra },
      null,
      2,
    )}\n`,
    'package.json.meta': meta('a1'),
    'README.md': '# Example Tool\n',
    'README.md.meta': meta('a2'),
    'Runtime.meta': meta('a3'),
    'Runtime/Tool.cs': 'public class Tool {}\n',
    'Runtime/Tool.cs.meta': meta('a4'),
    'Runtime/Example.Tool.asmdef': '{ "name": "Example.Tool" }\n',
    'Runtime/Example.Tool.asmdef.meta': meta('a5'),
    // Unity does not import folders ending in ~: no .meta is needed there.
    'Samples~/Demo/Demo.cs': 'public class Demo {}\n',
    'Documentation~/index.md': '# Docs\n',
    // Left out by .npmignore, as npm pack would.
    'Secret.txt': 'not for publishing\n',
    '.npmignore': 'Secret.txt\n',
  };
  for (const [file, content] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(dir, file)), { recursive: true });
    await writeFile(path.join(dir, file), content);
  }
  return dir;
}

const pkg = (args: string[], env: Record<string, string> = {}) =>
  runPkg(args, { home, env: { PKG_REGISTRY: registry.url, ...env } });

describe('pkg publish (built binary)', () => {
  it('checks and packs as npm does, prints what npm prints, and publishes only without --dry-run', async () => {
    const dir = await unityPackage('com.example.tool', '1.0.0');
    const preview = await pkg(['publish', dir, '--dry-run', '--json']);
    expect(preview.stderr).toBe('');
    expect(preview.code).toBe(0);
    const report = JSON.parse(preview.stdout);
    expect(report).toMatchObject({
      success: true,
      name: 'com.example.tool',
      version: '1.0.0',
      tag: 'latest',
      dry_run: true,
      published: false,
      filename: 'com.example.tool-1.0.0.tgz',
      entry_count: 11,
    });
    expect(report.files.map((f: { path: string }) => f.path)).toEqual([
      'Documentation~/index.md',
      'README.md',
      'README.md.meta',
      'Runtime.meta',
      'Runtime/Example.Tool.asmdef',
      'Runtime/Example.Tool.asmdef.meta',
      'Runtime/Tool.cs',
      'Runtime/Tool.cs.meta',
      'Samples~/Demo/Demo.cs',
      'package.json',
      'package.json.meta',
    ]);
    expect(report.integrity).toMatch(/^sha512-/);
    expect((await fetch(`${registry.url}/com.example.tool`)).status).toBe(404);

    // The same folder gives the same bytes, whatever the files' times.
    const later = new Date('2030-01-01T00:00:00Z');
    await utimes(path.join(dir, 'Runtime', 'Tool.cs'), later, later);
    const again = JSON.parse((await pkg(['publish', dir, '--dry-run', '--json'])).stdout);
    expect(again.integrity).toBe(report.integrity);

    const text = await pkg(['publish', dir, '--dry-run']);
    expect(text.stdout).toContain('Tarball Contents:\n');
    expect(text.stdout).toContain(`  integrity:     ${report.integrity}\n`);
    expect(text.stdout).toContain('  total files:   11\n');
    expect(text.stdout).toContain('Dry run: com.example.tool@1.0.0 was not published\n');

    const published = await pkg(['publish', dir], { PKG_TOKEN: token });
    expect(published.stderr).toBe('');
    expect(published.code).toBe(0);
    expect(published.stdout).toContain(`Published com.example.tool@1.0.0 to ${registry.url} with tag latest\n`);
    const document = (await (await fetch(`${registry.url}/com.example.tool`)).json()) as PackageDocument;
    expect(document['dist-tags']).toEqual({ latest: '1.0.0' });
    expect(document.versions['1.0.0']).toMatchObject({ displayName: 'Example Tool', unity: '2022.3', unityRelease: '10f1' });
    expect(document.versions['1.0.0']?.dist.integrity).toBe(report.integrity);
    expect(document.readme).toBe('# Example Tool\n');

    // Real npm installs what pkg published, .meta files and all, and verifies its integrity.
    const npm = await NpmClient.create(systemNpmCli(), registry.url);
    try {
      const project = await npm.dir('consumer', { name: 'consumer', version: '1.0.0', private: true });
      const install = await npm.run(['install', 'com.example.tool@1.0.0'], { cwd: project });
      expect(install.code, install.stderr).toBe(0);
      const installed = path.join(project, 'node_modules', 'com.example.tool');
      expect(await readFile(path.join(installed, 'Runtime', 'Tool.cs'), 'utf8')).toBe('public class Tool {}\n');
      expect(await readFile(path.join(installed, 'Runtime', 'Tool.cs.meta'), 'utf8')).toBe(meta('a4'));
      await expect(stat(path.join(installed, 'Secret.txt'))).rejects.toThrow();
    } finally {
      await npm.cleanup();
    }

    // The registry's reason for a refusal is reported: other bytes under a published version.
    await writeFile(path.join(dir, 'Runtime', 'Tool.cs'), 'public class Tool { int changed; }\n');
    const twice = await pkg(['publish', dir], { PKG_TOKEN: token });
    expect(twice.code).toBe(1);
    expect(twice.stderr).toMatch(/^Error: The registry refused com\.example\.tool: .+\nHint: /);
  });

  it('refuses a folder with a missing or orphaned .meta before any network traffic, and changes nothing', async () => {
    const dir = await unityPackage('com.example.broken', '1.0.0');
    await rm(path.join(dir, 'Runtime', 'Tool.cs.meta'));
    await writeFile(path.join(dir, 'Gone.cs.meta'), meta('b1'));
    // A registry that does not answer: the checks must not need one.
    const result = await pkg(['publish', dir, '--json'], { PKG_REGISTRY: 'http://127.0.0.1:9', PKG_TOKEN: token });
    expect(result.code).toBe(1);
    const error = JSON.parse(result.stdout);
    expect(error).toMatchObject({ success: false, code: 'PACKAGE_INVALID' });
    expect(error.error).toBe(`Cannot publish ${dir}: file Runtime/Tool.cs has no Runtime/Tool.cs.meta`);
    expect(error.hint).toContain('Gone.cs.meta belongs to no file or folder of the package');

    const badFields = await unityPackage('Com.Example.Bad', '1.0', { unity: '2022.3.10f1', displayName: undefined });
    const fields = await pkg(['publish', badFields, '--dry-run']);
    expect(fields.code).toBe(1);
    expect(fields.stderr).toContain('"name" "Com.Example.Bad" is not valid: the package name must be lowercase');
    expect(fields.stderr).toContain('"version" "1.0" is not a semver version');
    expect(fields.stderr).toContain('"unity" "2022.3.10f1" is not <major>.<minor>');
    expect(fields.stderr).toContain('"displayName" is missing');
  });

  it('names the registry and how to log in when it wants a token', async () => {
    const dir = await unityPackage('com.example.anonymous', '1.0.0');
    const result = await pkg(['publish', dir]);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      `Error: Authentication required by ${registry.url}\nHint: Run \`pkg login --registry ${registry.url}\`, or give Unity a token for ${registry.url} in ~/.upmconfig.toml ([npmAuth."${registry.url}"]).\n`,
    );
  });

  it("honours package.json's publishConfig (registry, tag) below --registry and --tag, as npm does", async () => {
    const other = await startRegistry();
    try {
      await loginUser(other.url, 'company', 'company-password');
      const dir = await unityPackage('com.example.configured', '1.0.0', { publishConfig: { registry: other.url, tag: 'beta' } });

      const preview = await pkg(['publish', dir, '--dry-run']);
      expect(preview.code).toBe(0);
      expect(preview.stdout).toContain(`Registry: ${other.url} (publishConfig.registry)\nTag: beta\n`);

      // PKG_TOKEN belongs to the registry in effect (PKG_REGISTRY): a package.json naming another
      // registry does not get it.
      const refused = await pkg(['publish', dir], { PKG_TOKEN: token });
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain(`Error: Authentication required by ${other.url}\n`);

      // With Unity's credentials for that registry (here a name and password, `_auth`).
      const upmconfig = path.join(work, 'publish-upmconfig.toml');
      const auth = Buffer.from('company:company-password').toString('base64');
      await writeFile(upmconfig, `[npmAuth."${other.url}"]\n_auth = "${auth}"\nalwaysAuth = true\n`);
      const published = await pkg(['publish', dir, '--json'], { UPM_USER_CONFIG_FILE: upmconfig });
      expect(published.stderr).toBe('');
      expect(JSON.parse(published.stdout)).toMatchObject({ registry: other.url, tag: 'beta', published: true });
      const document = (await (await fetch(`${other.url}/com.example.configured`)).json()) as PackageDocument;
      expect(document['dist-tags']).toEqual({ beta: '1.0.0', latest: '1.0.0' });
      expect(document.maintainers).toEqual([{ name: 'company', email: 'company@example.com' }]);

      // The command line wins.
      const flags = await pkg(['publish', dir, '--registry', registry.url, '--tag', 'next'], { PKG_TOKEN: token });
      expect(flags.stderr).toBe('');
      expect(flags.stdout).toContain(`Published com.example.configured@1.0.0 to ${registry.url} with tag next\n`);

      const bad = await unityPackage('com.example.badconfig', '1.0.0', { publishConfig: { registry: 'http://example.com' } });
      const invalid = await pkg(['publish', bad, '--dry-run']);
      expect(invalid.code).toBe(1);
      expect(invalid.stderr.startsWith(`Error: Cannot publish ${bad}: publishConfig.registry: Refusing`)).toBe(true);
    } finally {
      await other.close();
    }
  });

  it('streams a big package, with a progress bar in a terminal while the upload lasts', async () => {
    const dir = await unityPackage('com.example.big', '1.0.0');
    // Random bytes do not compress: the tarball stays about as big as the file.
    const blob = randomBytes(12 * 1024 * 1024);
    await writeFile(path.join(dir, 'Runtime', 'Data.bytes'), blob);
    await writeFile(path.join(dir, 'Runtime', 'Data.bytes.meta'), meta('c1'));
    // A registry that reads the body slowly, as a far one would, then checks what arrived.
    const received: { contentLength: number; bytes: number; attachment: number }[] = [];
    const slow = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        req.pause();
        setTimeout(() => req.resume(), 15);
      });
      req.on('end', () => {
        const body = Buffer.concat(chunks);
        const document = JSON.parse(body.toString('utf8'));
        const attachment = Object.values(document._attachments as Record<string, { data: string }>)[0]!;
        received.push({
          contentLength: Number(req.headers['content-length']),
          bytes: body.length,
          attachment: Buffer.from(attachment.data, 'base64').length,
        });
        res.writeHead(201, { 'content-type': 'application/json' });
        res.end('{"ok":true}');
      });
    });
    await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(slow.address() as AddressInfo).port}`;
    try {
      const result = await runPkgInPty(['publish', dir, '--registry', url], [], { home, env: { PKG_TOKEN: token } });
      expect(result.code, result.stdout).toBe(0);
      expect(result.stdout).toMatch(/com\.example\.big@1\.0\.0 {2}[█░]+ {2}[\d.]+ MB \/ [\d.]+ MB {2}[\d.]+ MB\/s/);
      expect(result.stdout).toContain(`Published com.example.big@1.0.0 to ${url} with tag latest`);
      expect(received).toHaveLength(1);
      expect(received[0]!.bytes).toBe(received[0]!.contentLength);
      expect(received[0]!.attachment).toBeGreaterThan(blob.length);
    } finally {
      await new Promise((resolve) => slow.close(resolve));
    }
  });
});
