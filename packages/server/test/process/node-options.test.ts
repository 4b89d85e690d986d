import { afterEach, describe, expect, it } from 'vitest';
import { REGISTRY_BIN, runRegistryCli, spawnRegistry, type SpawnedRegistry } from '@pkg/testkit';
import { relaunchPlan } from '../../src/node-options.js';

// `pkg-registry serve` as npm's bin link or shim starts it: a plain `node` without the process
// options of docs/operations.md ("Memory"). The start-up line names what the server runs with.

const OPTIONS = ['--max-semi-space-size=2', '--heap-growing-percent=20', '--no-concurrent-recompilation'];

interface Runtime {
  version: string;
  options: string[];
  threadPool: number;
  heapLimitMiB: number;
}

const started: SpawnedRegistry[] = [];
afterEach(async () => {
  for (const registry of started.splice(0)) await registry.cleanup();
});

async function serve(options: { env?: Record<string, string>; nodeOptions?: string[] } = {}) {
  const registry = await spawnRegistry({
    // No UV_THREADPOOL_SIZE of this test process's own, and the relaunch the test kit turns off.
    env: { UV_THREADPOOL_SIZE: '', PKG_REGISTRY_RELAUNCH: '', ...options.env },
    command: { file: process.execPath, args: [...(options.nodeOptions ?? []), REGISTRY_BIN, 'serve'] },
  });
  started.push(registry);
  const line = await registry.waitForLog((entry) => entry.msg === 'pkg-registry listening');
  return { registry, runtime: line.node as unknown as Runtime, serverPid: line.pid as number };
}

describe('pkg-registry serve started by a plain node', () => {
  it('runs with the heap options and thread pool of docs/operations.md, and says so at start', async () => {
    const { registry, runtime, serverPid } = await serve();
    expect(runtime.options).toEqual(OPTIONS);
    expect(runtime.threadPool).toBe(8);
    expect(runtime.version).toBe(process.version);
    // A child of the process started, which waits on it.
    expect(serverPid).not.toBe(registry.child.pid);
    expect((await fetch(`${registry.url}/-/ping`)).status).toBe(200);
    // SIGTERM to the process started alone (a supervisor, `kill <pid>`) reaches the server,
    // which stops cleanly; the exit code is the server's.
    registry.child.kill('SIGTERM');
    expect(await registry.exited).toEqual({ code: 0, signal: null });
    expect(registry.logEntries().filter((entry) => entry.msg === 'stopped')).toHaveLength(1);
  });

  it("keeps an operator's own values and adds only what is missing", async () => {
    const { registry, runtime } = await serve({ env: { UV_THREADPOOL_SIZE: '3' }, nodeOptions: ['--max-semi-space-size=16'] });
    expect(runtime.options).toEqual(['--heap-growing-percent=20', '--no-concurrent-recompilation', '--max-semi-space-size=16']);
    expect(runtime.threadPool).toBe(3);
    // Ctrl+C or systemd signal the whole group: the server hears it twice (directly and passed
    // on) and stops once.
    expect(await registry.stop('SIGINT')).toEqual({ code: 0, signal: null });
    expect(registry.logEntries().filter((entry) => entry.msg === 'stopped')).toHaveLength(1);
  });

  it('with PKG_REGISTRY_RELAUNCH=0 runs in the process started, with what it was given', async () => {
    const { registry, runtime, serverPid } = await serve({ env: { PKG_REGISTRY_RELAUNCH: '0' } });
    expect(runtime.options).toEqual([]);
    expect(runtime.threadPool).toBe(4);
    expect(serverPid).toBe(registry.child.pid);
  });

  it('ends with the process started when that one is killed', async () => {
    const { registry } = await serve();
    registry.child.kill('SIGKILL');
    await registry.exited;
    // The server was told by its IPC channel closing: it must not go on holding the port.
    await expect
      .poll(
        () =>
          fetch(`${registry.url}/-/ping`).then(
            () => 'answers',
            () => 'gone',
          ),
        { timeout: 30_000 },
      )
      .toBe('gone');
  });
});

describe('PKG_REGISTRY_RELAUNCH', () => {
  it('refuses a value it does not know, with exit code 2, before starting anything', async () => {
    const run = await runRegistryCli(['serve', '--port', '0'], { env: { PKG_REGISTRY_RELAUNCH: 'sometimes' } });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("PKG_REGISTRY_RELAUNCH must be 0 or 1 (also off/on, false/true, no/yes), got 'sometimes'");
    expect(run.stdout).toBe('');
  });
});

describe('relaunchPlan', () => {
  it('relaunches serve only, and only for what is missing', () => {
    expect(relaunchPlan(['serve'], [], {})).toEqual({ flags: OPTIONS, env: { UV_THREADPOOL_SIZE: '8' } });
    expect(relaunchPlan(['serve'], OPTIONS, { UV_THREADPOOL_SIZE: '8' })).toBeUndefined();
    expect(relaunchPlan(['serve'], [], { NODE_OPTIONS: '--max_semi_space_size=4', UV_THREADPOOL_SIZE: '2' })).toEqual({
      flags: OPTIONS.slice(1),
      env: {},
    });
    for (const argv of [['migrate'], ['user', 'list'], ['serve', '--help'], ['version']])
      expect(relaunchPlan(argv, [], {})).toBeUndefined();
    for (const value of ['0', 'off', 'false', 'OFF'])
      expect(relaunchPlan(['serve'], [], { PKG_REGISTRY_RELAUNCH: value })).toBeUndefined();
  });
});
