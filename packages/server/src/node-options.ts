/**
 * The process options `pkg-registry serve` runs with (docs/operations.md, "Memory"): V8's heap
 * bounds and compiler threads, and libuv's thread pool. V8 and libuv read them once, when the
 * process starts, and the project never changes V8 flags at run time; so a `serve` started
 * without them (`npm install -g` and `pkg-registry serve`, `npx`, Windows' npm shims: each runs
 * plain `node`) starts itself again, once, as a child with them, and stays in between as a thin
 * parent: stdio is shared, signals are passed on, the child's exit code or signal becomes its own.
 *
 * Why a child rather than an `env -S` shebang: a shebang is skipped by `node <bin>`, cannot
 * leave an operator's own UV_THREADPOOL_SIZE or heap flags in force, and BusyBox's `env`
 * (Alpine) has no `-S`, so the program would not start there at all. This module loads nothing
 * but node:child_process, so the parent stays small.
 */
import { spawn } from 'node:child_process';
import { constants } from 'node:os';

/** Node's options of `serve`, each with the name that tells whether an operator set it already. */
export const SERVE_NODE_FLAGS: readonly { name: string; flag: string }[] = [
  { name: '--max-semi-space-size', flag: '--max-semi-space-size=2' },
  { name: '--heap-growing-percent', flag: '--heap-growing-percent=20' },
  { name: '--no-concurrent-recompilation', flag: '--no-concurrent-recompilation' },
];

/** libuv's thread pool size of `serve`, unless the environment sets one. */
export const SERVE_THREAD_POOL = '8';

/**
 * `0` (or `off`, `false`, `no`): `serve` runs in the process started, with whatever options it
 * has; `1` (`on`, `true`, `yes`) or unset: the default.
 */
export const RELAUNCH_ENV = 'PKG_REGISTRY_RELAUNCH';
const RELAUNCH_OFF = /^(0|off|false|no)$/i;
const RELAUNCH_ON = /^(1|on|true|yes)?$/i;

/** The problem with RELAUNCH_ENV's value, if any (start-up then ends with exit code 2). */
export function relaunchSettingProblem(env: NodeJS.ProcessEnv): string | undefined {
  const value = env[RELAUNCH_ENV] ?? '';
  if (RELAUNCH_OFF.test(value) || RELAUNCH_ON.test(value)) return undefined;
  return `${RELAUNCH_ENV} must be 0 or 1 (also off/on, false/true, no/yes), got '${value.slice(0, 40)}'`;
}
/** Set by the parent for its child (and removed by the child): the parent is waiting on it. */
const CHILD_ENV = 'PKG_REGISTRY_RELAUNCHED';

export interface RelaunchPlan {
  /** Flags to add in front of the process's own (`process.execArgv`). */
  flags: string[];
  /** Environment to add. */
  env: Record<string, string>;
}

/**
 * What the process lacks of `serve`'s options; undefined when nothing (an operator's own value
 * of a flag or of UV_THREADPOOL_SIZE counts as set), for other commands, or when opted out.
 */
export function relaunchPlan(
  argv: readonly string[],
  execArgv: readonly string[],
  env: NodeJS.ProcessEnv,
): RelaunchPlan | undefined {
  if (argv[0] !== 'serve' || argv.includes('--help') || argv.includes('-h')) return undefined;
  if (env[CHILD_ENV] !== undefined || RELAUNCH_OFF.test(env[RELAUNCH_ENV] ?? '')) return undefined;
  const given = [...execArgv, ...(env.NODE_OPTIONS ?? '').split(/\s+/)].map((option) => option.split('=')[0]!.replace(/_/g, '-'));
  const flags = SERVE_NODE_FLAGS.filter(({ name }) => !given.includes(name)).map(({ flag }) => flag);
  const poolEnv: Record<string, string> = env.UV_THREADPOOL_SIZE ? {} : { UV_THREADPOOL_SIZE: SERVE_THREAD_POOL };
  return flags.length === 0 && Object.keys(poolEnv).length === 0 ? undefined : { flags, env: poolEnv };
}

/** Signals a terminal, `kill` or a supervisor sends to the parent, passed on to the child. */
const FORWARDED: readonly NodeJS.Signals[] = ['SIGTERM', 'SIGINT', 'SIGHUP'];

/**
 * Runs `serve` in a child with the options it lacks and resolves with the exit code to end
 * with, or undefined when this process is to run the command itself (nothing lacking, opted
 * out, or this is the child). A child killed by a signal ends the parent by the same signal.
 */
export async function relaunchIfNeeded(argv: readonly string[]): Promise<number | undefined> {
  if (process.env[CHILD_ENV] !== undefined) {
    adoptedByParent();
    return undefined;
  }
  if (argv[0] === 'serve') {
    const problem = relaunchSettingProblem(process.env);
    if (problem) {
      process.stderr.write(`Error: ${problem}\n`);
      return 2;
    }
  }
  const plan = relaunchPlan(argv, process.execArgv, process.env);
  const script = process.argv[1];
  if (!plan || script === undefined) return undefined;
  const child = spawn(process.execPath, [...plan.flags, ...process.execArgv, script, ...argv], {
    // The IPC channel tells the child when the parent is gone, however it went.
    stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
    env: { ...process.env, ...plan.env, [CHILD_ENV]: '1' },
  });
  const forward = (signal: NodeJS.Signals) => {
    // A console's Ctrl+C reaches every process attached to it on Windows, and `kill` there
    // would end the child at once: the parent only waits.
    if (process.platform !== 'win32') child.kill(signal);
  };
  for (const signal of FORWARDED) process.on(signal, forward);
  const { code, signal } = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (exitCode, exitSignal) => resolve({ code: exitCode, signal: exitSignal }));
  });
  for (const s of FORWARDED) process.off(s, forward);
  if (signal !== null) {
    process.kill(process.pid, signal);
    // Not every signal ends a process by default: then end as a shell reports it.
    return 128 + (constants.signals[signal] ?? 0);
  }
  return code ?? 1;
}

/**
 * In the child: the marker is removed (settings refuse unknown PKG_REGISTRY_ variables, and
 * whatever this process starts is not a child of that parent), and if the parent ends without
 * ending the child (a SIGKILL, a crash), the child ends at once as well: an orphan server would
 * keep the port and the data directory of the service that was just stopped.
 */
function adoptedByParent(): void {
  delete process.env[CHILD_ENV];
  if (!process.channel) return;
  process.channel.unref();
  process.once('disconnect', () => process.kill(process.pid, 'SIGKILL'));
}
