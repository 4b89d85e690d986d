import { existsSync, statSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { request, spawnRegistry, type SpawnedRegistry } from '@pkg/testkit';

// Spawns the built binary: run `npm run build` first.
let server: SpawnedRegistry | undefined;
afterEach(async () => {
  await server?.cleanup();
  server = undefined;
});

/** An HTTP request on a raw socket whose body the test sends in parts; resolves with the raw response. */
function slowRequest(port: number, method: string, url: string, body: string) {
  const socket = net.connect({ host: '127.0.0.1', port });
  let response = '';
  socket.setEncoding('utf8').on('data', (chunk: string) => (response += chunk));
  const ended = new Promise<string>((resolve, reject) => {
    socket.on('close', () => resolve(response));
    socket.on('error', reject);
  });
  const write = (text: string) =>
    new Promise<void>((resolve, reject) => socket.write(text, (err) => (err ? reject(err) : resolve())));
  return {
    async start(part: string) {
      await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
      await write(
        `${method} ${url} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\n` +
          `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${part}`,
      );
    },
    async finish(rest: string) {
      await write(rest);
    },
    ended,
  };
}

function connectionRefused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', (err: NodeJS.ErrnoException) => resolve(err.code === 'ECONNREFUSED'));
  });
}

describe('graceful shutdown on SIGTERM', () => {
  it('finishes a request whose body is still arriving, refuses new connections, closes the database cleanly, exits 0', async () => {
    server = await spawnRegistry();
    const body = JSON.stringify({ name: 'late', password: 'late-password', email: 'late@example.com' });
    const half = Math.floor(body.length / 2);
    const slow = slowRequest(server.port, 'PUT', '/-/user/org.couchdb.user:late', body);
    await slow.start(body.slice(0, half));
    // A full round trip on another connection after the first half was sent: by then the
    // server has read the slow request's headers, so that request is in flight.
    expect((await request(`${server.url}/-/ping`, { headers: { connection: 'close' } })).status).toBe(200);

    server.child.kill('SIGTERM');
    await server.waitForLog((e) => e.msg === 'no longer accepting connections');
    expect(await connectionRefused(server.port)).toBe(true);

    await slow.finish(body.slice(half));
    const raw = await slow.ended;
    expect(raw).toMatch(/^HTTP\/1\.1 201 /);
    expect(raw).toMatch(/\r\nconnection: close\r\n/i); // the keep-alive socket does not hold up the exit
    expect(JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4))).toMatchObject({ ok: true, id: 'org.registry.user:late' });

    const exit = await server.exited;
    expect(exit).toEqual({ code: 0, signal: null });
    expect(server.logEntries().map((e) => e.msg)).toContain('stopped');

    // Closed cleanly: the WAL was checkpointed into the database file and the data reads back.
    const file = path.join(server.dataDir, 'registry.db');
    const wal = `${file}-wal`;
    expect(!existsSync(wal) || statSync(wal).size === 0).toBe(true);
    const db = new Database(file, { readonly: true });
    try {
      expect(db.prepare('SELECT name, email FROM users WHERE tenant = ? AND name = ?').get('', 'late')).toEqual({
        name: 'late',
        email: 'late@example.com',
      });
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    } finally {
      db.close();
    }
  });

  it('closes connections that do not finish within shutdownTimeout and still exits 0', async () => {
    server = await spawnRegistry({ args: ['--shutdown-timeout', '1'] });
    const body = JSON.stringify({ name: 'never', password: 'never-password', email: 'never@example.com' });
    const stuck = slowRequest(server.port, 'PUT', '/-/user/org.couchdb.user:never', body);
    await stuck.start(body.slice(0, 5));
    expect((await request(`${server.url}/-/ping`, { headers: { connection: 'close' } })).status).toBe(200);

    server.child.kill('SIGTERM');
    expect(await server.exited).toEqual({ code: 0, signal: null });
    await stuck.ended;
    expect(server.logEntries().map((e) => e.msg)).toContain('shutdown timeout reached: closing remaining connections');
    const cutOff = server.logEntries().filter((e) => e.msg === 'request cut off at the shutdown timeout');
    expect(cutOff).toEqual([expect.objectContaining({ method: 'PUT', url: '/-/user/org.couchdb.user:never', level: 40 })]);

    const db = new Database(path.join(server.dataDir, 'registry.db'), { readonly: true });
    try {
      expect(db.prepare('SELECT count(*) AS n FROM users').get()).toEqual({ n: 0 });
    } finally {
      db.close();
    }
  });
});
