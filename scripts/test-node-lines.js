#!/usr/bin/env node
// Runs the short form of the test suite on other Node.js lines than the one running this script
// (README, "Supported Node.js"): `npm run test:node-lines` checks 22 and 24, or the lines given
// as arguments (`npm run test:node-lines -- 20 22`).
//
// For each line it
//   1. installs the newest `node-<platform>-<arch>@<line>` from npm (Node.js binaries packaged by
//      version) into a cache folder, once;
//   2. copies this repository's files (tracked and new, not ignored) into a fresh folder and runs
//      `npm ci` there with that node first on the PATH: native modules (better-sqlite3) are built
//      for that line's ABI, and npm's engine check speaks for that line;
//   3. runs SHORT_FORM with that node (`npm ci` has built the workspaces through `prepare`).
// Any EBADENGINE warning of `npm ci` fails the line: "works on this line" means without warnings.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { performance } from 'node:perf_hooks';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Quick, in-process where possible, one of each kind: rules, client units, routes, one end-to-end. */
const SHORT_FORM = [
  'packages/protocol/test',
  'packages/cli/test/unit',
  'packages/server/test/routes',
  'packages/server/test/docs',
  'packages/cli/test/e2e/version.test.ts',
];
const DEFAULT_LINES = ['22', '24'];

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const cacheDir = path.join(process.env.XDG_CACHE_HOME ?? path.join(homedir(), '.cache'), 'pkg-registry', 'node-lines');
const lines = process.argv.slice(2).length > 0 ? process.argv.slice(2) : DEFAULT_LINES;
const binaryPackage = `node-${process.platform}-${process.arch}`;

function log(text) {
  process.stdout.write(`${text}\n`);
}

/** `1m 05s` since `start` (performance.now()). */
function since(start) {
  const seconds = Math.round((performance.now() - start) / 1000);
  return `${Math.floor(seconds / 60)}m ${String(seconds % 60).padStart(2, '0')}s`;
}

/** Runs a command, echoing its output; returns it when asked to capture. */
function run(file, args, options = {}) {
  const result = spawnSync(file, args, {
    stdio: options.capture ? ['ignore', 'pipe', 'pipe'] : 'inherit',
    encoding: 'utf8',
    ...options,
  });
  if (options.capture) {
    process.stdout.write(result.stdout ?? '');
    process.stderr.write(result.stderr ?? '');
  }
  if (result.status !== 0) {
    throw new Error(`${path.basename(file)} ${args.join(' ')} exited with ${result.status ?? result.signal}`);
  }
  return result;
}

/** npm's own entry point, run by the node of the line under test. */
function npmCli() {
  if (process.env.npm_execpath?.endsWith('.js')) return process.env.npm_execpath;
  const found = spawnSync('sh', ['-c', 'command -v npm'], { encoding: 'utf8' }).stdout.trim();
  if (!found) throw new Error('npm is not on the PATH');
  return path.join(path.dirname(realpathSync(found)), 'npm-cli.js');
}

function nodeOfLine(line, npm) {
  const prefix = path.join(cacheDir, `${binaryPackage}@${line}`);
  const node = path.join(prefix, 'node_modules', binaryPackage, 'bin', 'node');
  if (!existsSync(node)) {
    mkdirSync(prefix, { recursive: true });
    log(`Installing ${binaryPackage}@${line} into ${prefix}`);
    run(process.execPath, [
      npm,
      'install',
      '--prefix',
      prefix,
      '--no-save',
      '--no-package-lock',
      '--no-audit',
      '--no-fund',
      `${binaryPackage}@${line}`,
    ]);
  }
  return node;
}

/** The files a clean clone would have, plus new files not yet committed. */
function copyRepository(into) {
  const listed = spawnSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: root,
    encoding: 'utf8',
  });
  if (listed.status !== 0) throw new Error('git ls-files failed: run this in a git checkout');
  for (const file of listed.stdout.split('\0').filter(Boolean)) {
    const from = path.join(root, file);
    if (!existsSync(from)) continue; // deleted in the working tree
    mkdirSync(path.dirname(path.join(into, file)), { recursive: true });
    cpSync(from, path.join(into, file));
  }
}

function checkLine(line, npm) {
  const node = nodeOfLine(line, npm);
  const version = run(node, ['--version'], { capture: true }).stdout.trim();
  log(`\n== Node.js ${version} (line ${line}) ==`);
  const work = mkdtempSync(path.join(tmpdir(), `pkg-node-${line}-`));
  try {
    copyRepository(work);
    // Native modules without a prebuilt binary for this line are compiled against the headers the
    // package ships (include/node), so node-gyp never downloads them.
    const env = {
      ...process.env,
      PATH: `${path.dirname(node)}${path.delimiter}${process.env.PATH}`,
      CI: 'true',
      npm_config_nodedir: path.dirname(path.dirname(node)),
    };
    delete env.npm_config_engine_strict;
    const installing = performance.now();
    const installed = run(node, [npm, 'ci', '--no-audit', '--no-fund'], { cwd: work, env, capture: true });
    const warnings = `${installed.stdout}\n${installed.stderr}`.split('\n').filter((text) => text.includes('EBADENGINE'));
    if (warnings.length > 0) throw new Error(`npm ci on Node.js ${version} warned about engines:\n${warnings.join('\n')}`);
    const installTime = since(installing);
    const testing = performance.now();
    run(node, ['node_modules/vitest/vitest.mjs', 'run', '--project', 'embedded', ...SHORT_FORM], { cwd: work, env });
    log(`Node.js ${version}: the short form passed (npm ci ${installTime}, tests ${since(testing)}).`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

const npm = npmCli();
const failed = [];
for (const line of lines) {
  try {
    checkLine(line, npm);
  } catch (err) {
    process.stderr.write(`Node.js ${line}: ${err instanceof Error ? err.message : String(err)}\n`);
    failed.push(line);
  }
}
if (failed.length > 0) {
  process.stderr.write(`\nFailed on Node.js ${failed.join(', ')}.\n`);
  process.exit(1);
}
log(`\nThe short form passed on Node.js ${lines.join(', ')}.`);
