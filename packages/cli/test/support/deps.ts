import * as fs from 'node:fs/promises';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import type { Deps, KeyringBinding, OutputStream } from '../../src/deps.js';
import { createUndiciTransport } from '../../src/http/undici-transport.js';
import { runCli } from '../../src/cli.js';
import { runShell } from '../../src/io/run-shell.js';

export interface Captured extends OutputStream {
  text(): string;
}

export function capture(isTTY = false): Captured {
  let out = '';
  return {
    isTTY,
    write(chunk: string) {
      out += chunk;
      return true;
    },
    text: () => out,
  };
}

export interface TestDeps extends Deps {
  stdout: Captured;
  stderr: Captured;
  stdinStream: PassThrough;
}

/**
 * Real IO for in-process command tests (real files under a fresh temp home, real HTTP), with
 * captured stdout/stderr, a scriptable stdin, no keychain and no waiting between retries.
 */
export type TestDepsOverrides = Partial<Omit<TestDeps, 'env'>> & { env?: Record<string, string | undefined> };

export async function testDeps(overrides: TestDepsOverrides = {}): Promise<TestDeps> {
  const home = await mkdtemp(path.join(tmpdir(), 'pkg-cli-test-'));
  const stdinStream = new PassThrough();
  const env = {
    HOME: home,
    PKG_CONFIG_DIR: path.join(home, 'config'),
    PKG_DATA_DIR: path.join(home, 'data'),
    PKG_CACHE_DIR: path.join(home, 'cache'),
    UPM_USER_CONFIG_FILE: path.join(home, '.upmconfig.toml'),
    ...overrides.env,
  };
  const base: TestDeps = {
    env,
    platform: 'linux',
    homedir: home,
    tmpdir: path.join(home, 'tmp'),
    cwd: home,
    pid: process.pid,
    version: '0.0.0-test',
    stdin: stdinStream,
    stdinStream,
    stdout: capture(),
    stderr: capture(),
    fs,
    now: () => new Date(),
    sleep: async () => undefined,
    createTransport: async (options) => createUndiciTransport(env, options),
    loadKeyring: async (): Promise<KeyringBinding> => {
      throw new Error('no keychain in tests');
    },
    runShell,
  };
  return { ...base, ...overrides, env };
}

export interface RunOutcome {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `pkg <argv>` in-process with the given deps (stdin answers, if any, written first). */
export async function run(deps: TestDeps, argv: string[], stdin?: string): Promise<RunOutcome> {
  if (stdin !== undefined) deps.stdinStream.end(stdin);
  const before = { out: deps.stdout.text().length, err: deps.stderr.text().length };
  const code = await runCli(argv, deps);
  return { code, stdout: deps.stdout.text().slice(before.out), stderr: deps.stderr.text().slice(before.err) };
}
