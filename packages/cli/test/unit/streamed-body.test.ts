import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BodyQueue } from '../../src/http/body-queue.js';
import { createUndiciTransport } from '../../src/http/undici-transport.js';

// A download cut off must keep every byte that reached pkg: the resume asks for the rest from
// exactly there (Range), so a byte dropped here is a byte fetched twice, or a resume from the wrong place.
const MiB = 1024 * 1024;
const CUT = 24 * MiB;
/** Less than any buffer on the way: all of it has arrived before the reader starts. */
const SHORT = 32 * 1024;
let shortCutClosed: (() => void) | undefined;

let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === '/short-cut') {
      res.writeHead(200, { 'content-length': String(2 * SHORT) });
      res.write(Buffer.alloc(SHORT, 7), () => {
        res.destroy();
        shortCutClosed?.();
      });
      return;
    }
    if (req.url === '/cut') {
      // Announces twice what it sends, then closes once the bytes have left: a network drop.
      res.writeHead(200, { 'content-length': String(2 * CUT), 'x-kind': 'cut' });
      res.write(Buffer.alloc(CUT, 7), () => res.destroy());
      return;
    }
    res.writeHead(200, { 'content-length': String(4 * MiB) });
    res.end(Buffer.alloc(4 * MiB, 1));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('streamed response bodies (undici transport)', () => {
  it('hands a slow reader every byte that arrived before the connection broke, then the network error', async () => {
    const transport = createUndiciTransport({}, { timeoutMs: 30_000 });
    try {
      const response = await transport.stream({ method: 'GET', url: new URL(`${base}/cut`), headers: {} });
      expect(response.status).toBe(200);
      expect(response.headers['x-kind']).toBe('cut');
      let received = 0;
      let failure: unknown;
      try {
        for await (const chunk of response.body) {
          received += chunk.length;
          // Slower than the network: undici's own Readable would hold bytes, and drop them at the cut.
          await new Promise((resolve) => setTimeout(resolve, 1));
        }
      } catch (err) {
        failure = err;
      }
      expect(received).toBe(CUT);
      expect((failure as { code?: string }).code).toBe('UND_ERR_SOCKET');
    } finally {
      await transport.close();
    }
  });

  it('keeps what arrived for a reader that starts only after the connection broke', async () => {
    const transport = createUndiciTransport({}, { timeoutMs: 30_000 });
    try {
      const closed = new Promise<void>((resolve) => (shortCutClosed = resolve));
      const response = await transport.stream({ method: 'GET', url: new URL(`${base}/short-cut`), headers: {} });
      await closed;
      // Time for pkg's side to see the close; undici's own body would have dropped the bytes by then.
      await new Promise((resolve) => setTimeout(resolve, 200));
      let received = 0;
      await expect(
        (async () => {
          for await (const chunk of response.body) received += chunk.length;
        })(),
      ).rejects.toMatchObject({ code: 'UND_ERR_SOCKET' });
      expect(received).toBe(SHORT);
    } finally {
      await transport.close();
    }
  });

  it('releases the connection when the reader leaves early, so the next request gets an answer', async () => {
    const transport = createUndiciTransport({}, { timeoutMs: 30_000 });
    try {
      const first = await transport.stream({ method: 'GET', url: new URL(`${base}/whole`), headers: {} });
      for await (const _chunk of first.body) break;
      const second = await transport.stream({ method: 'GET', url: new URL(`${base}/whole`), headers: {} });
      let size = 0;
      for await (const chunk of second.body) size += chunk.length;
      expect(size).toBe(4 * MiB);
    } finally {
      await transport.close();
    }
  });

  it('rejects with the connection error when nothing answers', async () => {
    const transport = createUndiciTransport({}, { timeoutMs: 30_000 });
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const address = closed.address();
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    try {
      const url = new URL(`http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/`);
      await expect(transport.stream({ method: 'GET', url, headers: {} })).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    } finally {
      await transport.close();
    }
  });
});

describe('BodyQueue', () => {
  const source = () => {
    const calls: string[] = [];
    return { calls, pause: () => calls.push('pause'), resume: () => calls.push('resume'), abort: () => calls.push('abort') };
  };

  it('pauses the connection past its high-water mark and resumes it once the reader took half', async () => {
    const s = source();
    const queue = new BodyQueue(s, 10);
    for (let i = 0; i < 4; i++) queue.push(Buffer.alloc(3));
    expect(s.calls).toEqual(['pause']);
    const reader = queue[Symbol.asyncIterator]();
    await reader.next();
    await reader.next();
    // 6 bytes still waiting: more than half of 10.
    expect(s.calls).toEqual(['pause']);
    await reader.next();
    expect(s.calls).toEqual(['pause', 'resume']);
  });

  it('gives the chunks that came before an error, then the error', async () => {
    const queue = new BodyQueue(source());
    queue.push(Buffer.from('ab'));
    queue.push(Buffer.from('cd'));
    queue.fail(Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }));
    const seen: string[] = [];
    await expect(
      (async () => {
        for await (const chunk of queue) seen.push(Buffer.from(chunk).toString());
      })(),
    ).rejects.toMatchObject({ code: 'UND_ERR_SOCKET' });
    expect(seen).toEqual(['ab', 'cd']);
  });

  it('aborts the request when the reader leaves before the end, and not after it', async () => {
    const early = source();
    const queue = new BodyQueue(early);
    queue.push(Buffer.from('x'));
    for await (const _chunk of queue) break;
    expect(early.calls).toEqual(['abort']);

    const whole = source();
    const ended = new BodyQueue(whole);
    ended.push(Buffer.from('x'));
    ended.end();
    for await (const _chunk of ended) {
      // read to the end
    }
    expect(whole.calls).toEqual([]);
  });
});
