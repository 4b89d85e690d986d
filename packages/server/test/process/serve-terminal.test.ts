import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REGISTRY_BIN, registryChildEnv, request, spawnRegistry } from '@pkg/testkit';
import { readableLine } from '../../src/plugins/readable-log.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'serve-terminal-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Runs `serve` with stdout on a pseudo-terminal (util-linux `script`), until `until` is seen. */
function serveOnTerminal(until: RegExp): Promise<string> {
  const command = `exec ${process.execPath} ${REGISTRY_BIN} serve --host 127.0.0.1 --port 0 --data ${path.join(dir, 'data')}`;
  const child = spawn('script', ['-qfec', command, '/dev/null'], { env: registryChildEnv(), stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      const address = /listening on (http:\/\/\S+),/.exec(out);
      if (address && !out.includes('/-/ping')) void request(`${address[1]}/-/ping`);
      if (until.test(out)) {
        child.kill('SIGTERM');
        resolve(out);
      }
    });
    child.once('close', () => resolve(out));
  });
}

describe('pkg-registry serve on a terminal', () => {
  it('prints one readable start-up line and readable request lines', async () => {
    const out = await serveOnTerminal(/GET \/-\/ping 200/);
    const lines = out.split(/\r?\n/).filter(Boolean);
    // A new data folder is migrated first, and each migration says so on a line of its own.
    const start = lines.findIndex((line) => line.startsWith('pkg-registry listening'));
    expect(lines[start]).toMatch(/^pkg-registry listening on http:\/\/127\.0\.0\.1:\d+, data in .*data$/);
    expect(lines.slice(0, start).length).toBeGreaterThan(0);
    for (const line of lines.slice(0, start)) expect(line).toMatch(/^\d\d:\d\d:\d\d INFO {2}applying database migration /);
    expect(out).not.toContain('{"level"');
    expect(out).not.toContain('Server listening at');
    expect(out).toMatch(/\d\d:\d\d:\d\d GET \/-\/ping 200 [\d.]+ ms/);
  });

  it('keeps the JSON lines when stdout is not a terminal', async () => {
    const server = await spawnRegistry();
    try {
      await request(`${server.url}/-/ping`);
      await server.waitForLog((e) => e.msg === 'request' && e.url === '/-/ping');
      expect(
        server
          .stdout()
          .split('\n')
          .filter(Boolean)
          .every((line) => line.startsWith('{"level":')),
      ).toBe(true);
    } finally {
      await server.cleanup();
    }
  });

  it('never shows a database password in the start-up line', () => {
    const line = readableLine(
      { level: 30, time: 0, msg: 'pkg-registry listening', address: 'http://0.0.0.0:4873' },
      { data: '/srv/data', database: 'postgres://registry:hunter2@db.internal/registry', storage: 's3://bucket?region=x' },
    );
    expect(line).toBe(
      'pkg-registry listening on http://0.0.0.0:4873, metadata in postgres://registry:***@db.internal/registry, tarballs in s3://bucket?region=x',
    );
  });
});
