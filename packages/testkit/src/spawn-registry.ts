import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { UntypedJson } from './untyped-json.js';

/** The built `pkg-registry` binary (run `npm run build` first). */
export const REGISTRY_BIN = fileURLToPath(new URL('../../server/bin/pkg-registry.js', import.meta.url));

export interface CliRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface RunRegistryCliOptions {
  env?: Record<string, string>;
  cwd?: string;
  /** Written to stdin, which is then closed. */
  input?: string;
}

/** The environment of a child: this process's, without any PKG_REGISTRY_* a developer has set. */
export function registryChildEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) if (!name.startsWith('PKG_REGISTRY_')) env[name] = value;
  // Tests sign up with short throwaway passwords; the policy's own tests set it back. The server
  // runs in the process started, not relaunched with npm start's node options (test/process/
  // node-options.test.ts proves the relaunch): one process per server, and its pid is the child's.
  return { ...env, PKG_REGISTRY_PASSWORD_MIN_LENGTH: '1', PKG_REGISTRY_RELAUNCH: '0', ...extra };
}

/** Runs the built `pkg-registry` with arguments to completion (admin commands, bad start-ups). */
export function runRegistryCli(args: string[], options: RunRegistryCliOptions = {}): Promise<CliRun> {
  const child = spawn(process.execPath, [REGISTRY_BIN, ...args], {
    cwd: options.cwd,
    env: registryChildEnv(options.env),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  child.stdin.end(options.input ?? '');
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

export interface SpawnedRegistry {
  /** Base URL taken from the server's "listening" log line. */
  url: string;
  port: number;
  /**
   * The child process started. Started without its node options, `pkg-registry serve` starts
   * itself again as a child of this one (node-options.ts): `child` is then that parent.
   */
  child: ChildProcess;
  /** The process of the server itself, from its "listening" line: the one whose memory counts. */
  serverPid: number;
  dataDir: string;
  /** Everything written to stdout so far (the JSON-lines log). */
  stdout(): string;
  stderr(): string;
  /** The log lines so far, parsed. */
  logEntries(): Record<string, UntypedJson>[];
  /** Resolves with the first log entry (already written or to come) that matches. */
  waitForLog(match: (entry: Record<string, UntypedJson>) => boolean): Promise<Record<string, UntypedJson>>;
  /** Resolves when the process has exited. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Sends a signal (SIGTERM by default) and waits for the exit. */
  stop(signal?: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Stops the process if still running and removes a data directory this helper created. */
  cleanup(): Promise<void>;
}

export interface SpawnRegistryOptions {
  /** Extra arguments of `serve` (port 0, host 127.0.0.1 and a data directory are given unless set here). */
  args?: string[];
  env?: Record<string, string>;
  dataDir?: string;
  cwd?: string;
  /**
   * Run this command line instead of `node <bin> serve …` (e.g. `npx pkg-registry serve`); it
   * gets its own process group, and `stop` signals the whole group.
   */
  command?: { file: string; args: string[] };
}

/**
 * Starts the built `pkg-registry serve` as a child process on a free port and waits until it
 * listens. For tests where the process boundary matters: signals, exit codes, crashes, stdout.
 */
export async function spawnRegistry(options: SpawnRegistryOptions = {}): Promise<SpawnedRegistry> {
  const ownsDir = options.dataDir === undefined;
  const dataDir = options.dataDir ?? (await mkdtemp(path.join(tmpdir(), 'pkg-registry-spawn-')));
  const serveArgs = ['--host', '127.0.0.1', '--port', '0', '--data', dataDir, '--log-level', 'info', ...(options.args ?? [])];
  const command = options.command ?? { file: process.execPath, args: [REGISTRY_BIN, 'serve'] };
  // A wrapper (npx → sh → node) does not pass signals on: give it its own process group and
  // signal the whole group.
  const group = options.command !== undefined;
  const child = spawn(command.file, [...command.args, ...serveArgs], {
    cwd: options.cwd,
    env: registryChildEnv(options.env),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: group,
  });
  let stdout = '';
  let stderr = '';
  const entries: Record<string, UntypedJson>[] = [];
  const waiters: { match: (e: Record<string, UntypedJson>) => boolean; resolve: (e: Record<string, UntypedJson>) => void }[] = [];
  let partial = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
    partial += chunk;
    const lines = partial.split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) {
      let entry: Record<string, UntypedJson>;
      try {
        entry = JSON.parse(line) as Record<string, UntypedJson>;
      } catch {
        continue;
      }
      entries.push(entry);
      for (const waiter of [...waiters]) {
        if (waiter.match(entry)) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve(entry);
        }
      }
    }
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('close', (code, signal) => resolve({ code, signal })),
  );

  const waitForLog = (match: (entry: Record<string, UntypedJson>) => boolean) => {
    const found = entries.find(match);
    if (found) return Promise.resolve(found);
    return new Promise<Record<string, UntypedJson>>((resolve, reject) => {
      waiters.push({ match, resolve });
      void exited.then(({ code, signal }) =>
        reject(new Error(`pkg-registry exited (${code ?? signal}) before the expected log line.\nstderr: ${stderr}`)),
      );
    });
  };

  const listening = await waitForLog((e) => e.msg === 'pkg-registry listening');
  const url = String(listening.address);
  const stop = async (signal: NodeJS.Signals = 'SIGTERM') => {
    if (child.exitCode === null && child.signalCode === null) {
      if (group) process.kill(-child.pid!, signal);
      else child.kill(signal);
    }
    return exited;
  };
  return {
    url,
    port: Number(new URL(url).port),
    child,
    serverPid: Number(listening.pid),
    dataDir,
    stdout: () => stdout,
    stderr: () => stderr,
    logEntries: () => [...entries],
    waitForLog,
    exited,
    stop,
    async cleanup() {
      if (child.exitCode === null && child.signalCode === null) await stop('SIGKILL');
      if (ownsDir) await rm(dataDir, { recursive: true, force: true });
    },
  };
}
