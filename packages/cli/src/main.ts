import { readFileSync } from 'node:fs';
import * as fs from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Deps } from './deps.js';
import { runCli } from './cli.js';
import { retryingLockedFiles } from './io/locked-files.js';

// Set by the release bundler (scripts/release.js) in the single executable; absent otherwise.
declare const __PKG_VERSION__: string | undefined;
declare const __PKG_SINGLE_EXECUTABLE__: boolean | undefined;
const SINGLE_EXECUTABLE = typeof __PKG_SINGLE_EXECUTABLE__ === 'boolean' && __PKG_SINGLE_EXECUTABLE__;

/**
 * The composition root: the only place real IO is constructed. Everything below receives it
 * through `deps`; heavy modules (undici, the keychain binding) load only when a command asks.
 */
export async function main(argv: string[]): Promise<number> {
  // `pkg search x | head` closes the pipe early: that is not a failure of pkg.
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code !== 'EPIPE') throw err;
    });
  }
  const deps: Deps = {
    env: process.env,
    platform: process.platform,
    homedir: homedir(),
    tmpdir: tmpdir(),
    cwd: process.cwd(),
    pid: process.pid,
    version: readVersion(),
    stdin: process.stdin,
    stdout: process.stdout,
    stderr: process.stderr,
    // Windows: a file another program holds open for a moment is waited for (io/locked-files.ts).
    fs: retryingLockedFiles(fs, process.platform, (ms) => sleep(ms)),
    now: () => new Date(),
    sleep: (ms) => sleep(ms),
    createTransport: async (options) => {
      const { createUndiciTransport } = await import('./http/undici-transport.js');
      return createUndiciTransport(process.env, options);
    },
    loadKeyring: async () => {
      // A single executable application can only require Node's built-in modules.
      if (SINGLE_EXECUTABLE) throw new Error('the single-file pkg cannot load the native keychain module');
      return await import('@napi-rs/keyring');
    },
    runShell: async (command, cwd) => {
      const { runShell } = await import('./io/run-shell.js');
      return runShell(command, cwd);
    },
  };
  return runCli(argv, deps);
}

function readVersion(): string {
  if (typeof __PKG_VERSION__ === 'string') return __PKG_VERSION__;
  try {
    const packageJson = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version?: string };
    return packageJson.version ?? '0.0.0';
  } catch {
    return '0.0.0';
  }
}
