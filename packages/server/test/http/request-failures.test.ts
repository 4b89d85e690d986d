/**
 * When a read fails, a blob stream breaks or the client leaves: the answer (or the cut), the
 * one log line of the failure and the request's own line and count.
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loginUser, publishBody, request, startRegistry, type TestRegistry, type UntypedJson } from '@pkg/testkit';

const NAME = 'com.acme.failing';

let registry: TestRegistry;

beforeAll(async () => {
  registry = await startRegistry({ captureLogs: true, settings: { rateLimitAnonymous: 100_000 } });
  const token = await loginUser(registry.url, 'alice');
  for (const [version, files] of [
    ['1.0.0', undefined],
    // Over 1 MiB: the blob store streams this tarball instead of reading it whole.
    ['1.1.0', [{ path: 'Runtime/data.bin', content: randomBytes(1_200_000) }]],
  ] as const) {
    const { body } = publishBody(NAME, version, files ? { files: [...files] } : {});
    expect((await request(`${registry.url}/${NAME}`, { method: 'PUT', token, body })).status).toBe(201);
  }
});
afterAll(async () => {
  await registry.close();
});

/** Log entries since `mark`, parsed. */
function entriesSince(mark: number): Record<string, UntypedJson>[] {
  return registry.logLines
    .slice(mark)
    .flatMap((chunk) => chunk.split('\n'))
    .filter((line) => line.length > 0)
    .map((line) => JSON.parse(line) as Record<string, UntypedJson>);
}

/** A GET on its own connection: status, whether the body came whole, the body. */
function get(path: string): Promise<{ status: number; complete: boolean; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = http.get({ hostname: '127.0.0.1', port: registry.port, path, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      const done = () => resolve({ status: res.statusCode ?? 0, complete: res.complete, body: Buffer.concat(chunks) });
      res.on('end', done);
      res.on('aborted', done);
      res.on('error', done);
    });
    req.on('error', reject);
  });
}

describe('when something goes wrong', () => {
  it('a file read fails: 500 without the reason, one error line naming the request', async () => {
    const reads = registry.services.packageReads;
    const original = { file: reads.file, cachedFile: reads.cachedFile };
    reads.cachedFile = () => undefined;
    reads.file = async () => {
      throw new Error('the disk is on fire');
    };
    const mark = registry.logLines.length;
    try {
      const res = await get(`/${NAME}/-/${NAME}-1.0.0.tgz`);
      expect(res.status).toBe(500);
      expect(JSON.parse(res.body.toString())).toEqual({
        error: 'The server failed to handle the request',
        code: 'INTERNAL_ERROR',
        details: 'The server failed to handle the request',
      });
    } finally {
      Object.assign(reads, original);
    }
    await vi.waitFor(() => expect(entriesSince(mark).filter((entry) => entry.msg === 'request')).toHaveLength(1));
    const entries = entriesSince(mark);
    const errors = entries.filter((entry) => entry.msg === 'unhandled error');
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ level: 50, err: { type: 'Error', message: 'the disk is on fire' } });
    const line = entries.find((entry) => entry.msg === 'request')!;
    expect(line).toMatchObject({ status: 500, url: `/${NAME}/-/${NAME}-1.0.0.tgz` });
    expect(errors[0]!.reqId).toBe(line.reqId);
  });

  it('a document read (not cached) fails: 500', async () => {
    const reads = registry.services.packageReads;
    const original = { document: reads.document, cachedDocument: reads.cachedDocument };
    reads.cachedDocument = () => undefined;
    reads.document = async () => {
      throw new Error('the database is on fire');
    };
    try {
      const res = await get(`/${NAME}`);
      expect(res.status).toBe(500);
      expect(res.body.toString()).not.toContain('fire');
    } finally {
      Object.assign(reads, original);
    }
  });

  it('a blob fails part way through a streamed tarball: the answer is cut short, and logged once', async () => {
    const { blobs } = registry.storage;
    const getBlob = blobs.get;
    blobs.get = async () => {
      let sent = false;
      const stream = new Readable({
        read() {
          // Once the first bytes are out (a turn of the event loop later).
          if (sent) setTimeout(() => this.destroy(new Error('the blob store went away')), 1);
          else {
            sent = true;
            this.push(Buffer.alloc(64 * 1024, 7));
          }
        },
      });
      return { stream, size: 1_201_054 };
    };
    const mark = registry.logLines.length;
    try {
      const res = await get(`/${NAME}/-/${NAME}-1.1.0.tgz`);
      expect(res.status).toBe(200);
      expect(res.complete).toBe(false);
    } finally {
      blobs.get = getBlob;
    }
    await vi.waitFor(() =>
      expect(entriesSince(mark).filter((entry) => entry.msg === 'request')).toMatchObject([
        { url: `/${NAME}/-/${NAME}-1.1.0.tgz`, status: 200 },
      ]),
    );
  });

  it('a client gone before the answer: one log line, and the server goes on', async () => {
    const reads = registry.services.packageReads;
    const original = { cachedDocument: reads.cachedDocument, document: reads.document };
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    // In an object: a promise resolved with a promise would wait for that one.
    let entered!: (started: { read: Promise<unknown> }) => void;
    const reading = new Promise<{ read: Promise<unknown> }>((resolve) => (entered = resolve));
    reads.cachedDocument = () => undefined;
    reads.document = (...args) => {
      const read = gate.then(() => original.document.apply(reads, args));
      entered({ read });
      return read;
    };
    const mark = registry.logLines.length;
    try {
      const req = http.request({ hostname: '127.0.0.1', port: registry.port, path: `/${NAME}`, agent: false });
      req.on('error', () => undefined);
      req.end();
      const { read } = await reading;
      req.destroy();
      await new Promise((resolve) => setTimeout(resolve, 50));
      release();
      await read;
    } finally {
      Object.assign(reads, original);
    }
    expect((await get(`/${NAME}`)).status).toBe(200);
    await vi.waitFor(() => expect(entriesSince(mark).filter((entry) => entry.msg === 'request')).toHaveLength(2));
    expect(entriesSince(mark).filter((entry) => entry.level !== 30)).toEqual([]);
  });
});
