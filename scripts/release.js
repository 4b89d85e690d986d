#!/usr/bin/env node
// Writes the release artifacts into release/ (run through `npm run release`, which builds first):
//   - one npm tarball per program, installable alone with `npm install -g <file>`: the workspace
//     package @pkg/protocol travels inside each tarball as a bundled dependency, so nothing
//     points at this repository;
//   - pkg-<platform>-<arch>: the client as a Node single executable application (the code
//     bundled into one CommonJS file by esbuild, injected into a copy of this node binary by
//     postject).
// The version of both programs is the root package.json's `version`: it is stamped into every
// staged package.json and into the single executable's bundle.
import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const out = path.join(root, 'release');
const stage = path.join(out, '.stage');
const readJson = (file) => JSON.parse(readFileSync(file, 'utf8'));
const { version } = readJson(path.join(root, 'package.json'));

/** The npm packages: workspace folder, published name (ours: `pkg` and `pkg-registry` are taken on npm). */
const PROGRAMS = [
  { workspace: 'server', name: 'pkg-registry-server', readme: 'server' },
  { workspace: 'cli', name: 'pkg-registry-client', readme: 'client' },
];

function log(text) {
  process.stdout.write(`${text}\n`);
}

function copyBuilt(from, to) {
  cpSync(from, to, {
    recursive: true,
    // Build bookkeeping, not something a user runs.
    filter: (source) => !source.endsWith('.tsbuildinfo'),
  });
}

// npm expects a bundled package's own dependencies inside the tarball too, and leaves empty
// folders where they are not; the protocol's (semver) are the host program's dependencies as
// well, so the bundled copy declares none and resolves them from the host's node_modules.
function stageProtocol(into, hostDependencies) {
  const source = path.join(root, 'packages/protocol');
  const target = path.join(into, 'node_modules/@pkg/protocol');
  mkdirSync(target, { recursive: true });
  copyBuilt(path.join(source, 'dist'), path.join(target, 'dist'));
  const { dependencies = {}, devDependencies: _dev, ...manifest } = readJson(path.join(source, 'package.json'));
  for (const dependency of Object.keys(dependencies)) {
    if (!hostDependencies[dependency]) {
      throw new Error(`@pkg/protocol depends on ${dependency}: add it to the dependencies of every program that bundles it.`);
    }
  }
  writeFileSync(path.join(target, 'package.json'), `${JSON.stringify({ ...manifest, version }, null, 2)}\n`);
}

function packProgram({ workspace, name, readme }) {
  const source = path.join(root, 'packages', workspace);
  const manifest = readJson(path.join(source, 'package.json'));
  const dir = path.join(stage, name);
  mkdirSync(dir, { recursive: true });
  for (const entry of manifest.files) copyBuilt(path.join(source, entry), path.join(dir, entry));
  stageProtocol(dir, manifest.dependencies);
  const { '@pkg/protocol': _protocol, ...dependencies } = manifest.dependencies;
  const published = {
    name,
    version,
    description: manifest.description,
    type: 'module',
    bin: manifest.bin,
    files: manifest.files,
    engines: readJson(path.join(root, 'package.json')).engines,
    license: manifest.license,
    dependencies: { ...dependencies, '@pkg/protocol': version },
    bundleDependencies: ['@pkg/protocol'],
  };
  writeFileSync(path.join(dir, 'package.json'), `${JSON.stringify(published, null, 2)}\n`);
  writeFileSync(path.join(dir, 'README.md'), readmeText(name, readme));
  const packed = JSON.parse(
    execFileSync('npm', ['pack', '--json', '--pack-destination', out], {
      cwd: dir,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    }),
  );
  log(`release/${packed[0].filename}  (${Object.keys(manifest.bin).join(', ')})`);
}

function readmeText(name, program) {
  const binary = program === 'server' ? 'pkg-registry' : 'pkg';
  return `# ${name}\n\n${
    program === 'server'
      ? 'pkg-registry: an npm-protocol package registry for game-engine packages.'
      : 'pkg: the command-line client of pkg-registry, for Unity projects.'
  }\n\n\`\`\`sh\nnpm install -g ${name}\n${binary} --help\n\`\`\`\n`;
}

async function buildSingleExecutable() {
  const require = createRequire(import.meta.url);
  const esbuild = await import('esbuild');
  const dir = path.join(stage, 'sea');
  mkdirSync(dir, { recursive: true });
  const bundle = path.join(dir, 'pkg.cjs');
  await esbuild.build({
    stdin: {
      contents:
        "import { main } from './dist/main.js';\nmain(process.argv.slice(2)).then((code) => { process.exitCode = code; });\n",
      resolveDir: path.join(root, 'packages/cli'),
      loader: 'js',
    },
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    outfile: bundle,
    // Prefer a package's ES module build: some UMD builds (jsonc-parser's) require their own
    // files by computed paths that a bundle cannot follow.
    mainFields: ['module', 'main'],
    // The keychain binding is a native module; a single executable can only require Node's
    // built-in modules, so the client uses its encrypted token file there (src/main.ts).
    external: ['@napi-rs/keyring'],
    define: { __PKG_VERSION__: JSON.stringify(version), __PKG_SINGLE_EXECUTABLE__: 'true' },
    logLevel: 'warning',
  });
  const blob = path.join(dir, 'pkg.blob');
  const seaConfig = path.join(dir, 'sea-config.json');
  writeFileSync(seaConfig, JSON.stringify({ main: bundle, output: blob, disableExperimentalSEAWarning: true }));
  execFileSync(process.execPath, ['--experimental-sea-config', seaConfig], { stdio: ['ignore', 'ignore', 'inherit'] });

  const executable = path.join(out, `pkg-${process.platform}-${process.arch}${process.platform === 'win32' ? '.exe' : ''}`);
  copyFileSync(process.execPath, executable);
  chmodSync(executable, 0o755);
  const { inject } = require('postject');
  await inject(executable, 'NODE_SEA_BLOB', readFileSync(blob), {
    sentinelFuse: 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2',
    ...(process.platform === 'darwin' ? { machoSegmentName: 'NODE_SEA' } : {}),
  });
  log(`release/${path.basename(executable)}  (pkg as one file, no Node.js needed)`);
}

for (const workspace of ['protocol', 'server', 'cli']) {
  if (!existsSync(path.join(root, 'packages', workspace, 'dist'))) {
    throw new Error(`packages/${workspace}/dist is missing: run \`npm run build\` first (npm run release does).`);
  }
}
rmSync(out, { recursive: true, force: true });
mkdirSync(stage, { recursive: true });
for (const program of PROGRAMS) packProgram(program);
await buildSingleExecutable();
rmSync(stage, { recursive: true, force: true });
log(`pkg-registry ${version}: release/ is ready.`);
