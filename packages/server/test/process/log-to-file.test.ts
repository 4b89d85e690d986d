import { spawn } from 'node:child_process';
import { mkdtemp, open, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { REGISTRY_BIN, registryChildEnv } from '@pkg/testkit';

// stdout redirected to a file is written synchronously, one write per turn of the event loop
// (src/plugins/logging.ts); every other case of the log goes through a pipe in the other tests.
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

async function logEntries(file: string): Promise<Record<string, unknown>[]> {
  const text = await readFile(file, 'utf8');
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('the request log written into a file', () => {
  it('holds every request line, each one whole, up to the shutdown', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'pkg-log-file-'));
    dirs.push(dir);
    const logFile = path.join(dir, 'server.log');
    const out = await open(logFile, 'w');
    const child = spawn(
      process.execPath,
      [REGISTRY_BIN, 'serve', '--data', path.join(dir, 'data'), '--port', '0', '--rate-limit-anonymous', '0'],
      { stdio: ['ignore', out.fd, 'pipe'], env: registryChildEnv() },
    );
    await out.close();
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      let address: string | undefined;
      for (let i = 0; i < 200 && address === undefined; i++) {
        address = (await logEntries(logFile)).find((e) => e.msg === 'pkg-registry listening')?.address as string | undefined;
        if (address === undefined) await sleep(50);
      }
      expect(address).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const statuses = await Promise.all(
        Array.from({ length: 40 }, (_, i) => fetch(`${address}/com.example.missing-${i}`).then((res) => res.status)),
      );
      expect(new Set(statuses)).toEqual(new Set([404]));
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
    const entries = await logEntries(logFile);
    const requests = entries.filter((e) => e.msg === 'request' && String(e.url).startsWith('/com.example.missing-'));
    expect(new Set(requests.map((e) => e.url)).size).toBe(40);
    expect(requests.every((e) => e.status === 404)).toBe(true);
    expect(entries.at(-1)?.msg).toBe('stopped');
  });
});
