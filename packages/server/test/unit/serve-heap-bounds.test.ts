import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { serve, type ServeIo } from '../../src/serve.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'serve-heap-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A process for `serve` that records what it is asked to bound, and stops when told. */
function recordingIo(): { io: ServeIo; calls: string[]; stop(): void } {
  const calls: string[] = [];
  let listener: ((signal: string) => void) | undefined;
  const io: ServeIo = {
    stderr: { write: (text) => void calls.push(`stderr ${text}`) },
    env: {},
    onStopSignal: (l) => void (listener = l),
    capYoungGeneration(bytes) {
      calls.push(`young ${bytes}`);
      return () => void calls.push('young released');
    },
    boundOldGenerationGrowth(percent) {
      calls.push(`old ${percent}`);
      return () => void calls.push('old released');
    },
  };
  return { io, calls, stop: () => listener?.('SIGTERM') };
}

describe("serve bounds the process's heap with its settings", () => {
  it('bounds both generations once listening and undoes both when it stops', async () => {
    const { io, calls, stop } = recordingIo();
    const args = ['--data', dir, '--host', '127.0.0.1', '--port', '0', '--log-level', 'silent'];
    const exit = serve([...args, '--young-generation', String(2 * 1024 * 1024), '--old-generation-growth', '35'], io);
    await vi.waitFor(() => expect(calls).toEqual([`young ${2 * 1024 * 1024}`, 'old 35']), { timeout: 10_000 });
    stop();
    expect(await exit).toBe(0);
    expect(calls).toEqual([`young ${2 * 1024 * 1024}`, 'old 35', 'young released', 'old released']);
  });

  it('passes the defaults, 4 MiB and 20 %, when nothing is set', async () => {
    const { io, calls, stop } = recordingIo();
    const exit = serve(['--data', dir, '--host', '127.0.0.1', '--port', '0', '--log-level', 'silent'], io);
    await vi.waitFor(() => expect(calls).toEqual([`young ${4 * 1024 * 1024}`, 'old 20']), { timeout: 10_000 });
    stop();
    expect(await exit).toBe(0);
  });

  it.each(['-1', '301', 'lots'])('refuses --old-generation-growth %s before serving', async (value) => {
    const { io, calls } = recordingIo();
    const exit = await serve(['--data', dir, '--port', '0', `--old-generation-growth=${value}`], io);
    expect(exit).toBe(2);
    expect(calls.join('')).toMatch(/oldGenerationGrowth|--old-generation-growth/);
    expect(calls.some((call) => call.startsWith('old '))).toBe(false);
  });
});
