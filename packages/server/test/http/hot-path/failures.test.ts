/** When a read fails, a blob stream breaks or the client leaves: the hot path answers, logs and counts as fastify does. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import http from 'node:http';
import { Readable } from 'node:stream';
import {
  closeTarget,
  comparePair,
  countsSince,
  eventually,
  HOT,
  requestLinesSince,
  scrape,
  startGlobalRegistry,
  type Target,
} from './harness.js';
import type { UntypedJson } from '@pkg/testkit';

describe('on the global registry', () => {
  let target: Target;

  beforeAll(async () => {
    ({ target } = await startGlobalRegistry());
  });
  afterAll(async () => {
    await closeTarget(target);
  });

  describe('when something goes wrong', () => {
    /** `unhandled error` lines since `mark`, without what differs by nature (time, reqId, stack). */
    function errorLinesSince(mark: number) {
      return target.registry.logLines
        .slice(mark)
        .flatMap((chunk) => chunk.split('\n'))
        .filter((line) => line.length > 0)
        .map((line) => JSON.parse(line) as Record<string, UntypedJson>)
        .filter((entry) => entry.msg === 'unhandled error')
        .map(({ time: _time, reqId, err, ...rest }) => ({
          ...rest,
          reqId: typeof reqId,
          err: { type: err?.type, message: err?.message },
        }));
    }

    it('a file read fails: the same 500 and the same error log line', async () => {
      const reads = target.registry.services.packageReads;
      const original = { file: reads.file, cachedFile: reads.cachedFile };
      // Not from the tarball cache: from the store, which fails.
      reads.cachedFile = () => undefined;
      reads.file = async () => {
        throw new Error('the disk is on fire');
      };
      const mark = target.registry.logLines.length;
      try {
        await comparePair(target, { path: `/${HOT}/-/${HOT}-1.0.0.tgz` }, { status: 500 });
      } finally {
        Object.assign(reads, original);
      }
      const [hotError, fastifyError, ...more] = errorLinesSince(mark);
      expect(more).toEqual([]);
      expect(fastifyError).toMatchObject({ level: 50, reqId: 'string', err: { type: 'Error', message: 'the disk is on fire' } });
      expect.soft(hotError, "the hot path's error log line").toEqual(fastifyError);
    });

    it('a blob fails part way through a streamed tarball: both cut the answer short', async () => {
      const { blobs } = target.registry.storage;
      const get = blobs.get;
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
      const mark = target.registry.logLines.length;
      try {
        const { fastify } = await comparePair(target, { path: `/${HOT}/-/${HOT}-1.1.0.tgz` }, { status: 200, cutShort: true });
        expect(fastify.complete).toBe(false);
      } finally {
        blobs.get = get;
      }
      const others = target.registry.logLines
        .slice(mark)
        .flatMap((chunk) => chunk.split('\n'))
        .filter((line) => line.length > 0)
        .map((line) => JSON.parse(line) as Record<string, UntypedJson>)
        .filter((entry) => entry.msg !== 'request' && entry.url !== '/-/metrics')
        .map(({ time: _time, reqId: _reqId, err, ...rest }) => ({
          ...rest,
          err: err && { type: err.type, message: err.message },
        }));
      // Whatever fastify logs besides the request line, the hot path logs too.
      expect.soft(others.length % 2, `other log lines of the pair: ${JSON.stringify(others)}`).toBe(0);
      expect.soft(others.slice(0, others.length / 2)).toEqual(others.slice(others.length / 2));
    });

    it('a client gone before the answer: logged and counted alike', async () => {
      const { registry } = target;
      const reads = registry.services.packageReads;
      const original = { cachedDocument: reads.cachedDocument, document: reads.document };
      const outcome: Partial<Record<'hot' | 'fastify', { lines: Record<string, unknown>[]; counts: Record<string, number> }>> =
        {};
      try {
        for (const mode of ['hot', 'fastify'] as const) {
          let entered!: (started: { read: Promise<unknown> }) => void;
          let release!: () => void;
          const reading = new Promise<{ read: Promise<unknown> }>((resolve) => (entered = resolve));
          const gate = new Promise<void>((resolve) => (release = resolve));
          // Read from the store each time, and only once the client has gone.
          reads.cachedDocument = () => undefined;
          reads.document = (...args) => {
            const read = gate.then(() => original.document.apply(reads, args));
            entered({ read });
            return read;
          };
          const before = await scrape(target);
          const mark = registry.logLines.length;
          const connections = () =>
            new Promise<number>((resolve, reject) =>
              registry.app.server.getConnections((err, count) => (err ? reject(err) : resolve(count))),
            );
          const open = await connections();
          const served = registry.hotPath.served;
          registry.hotPath.enabled = mode === 'hot';
          const req = http.request({ hostname: '127.0.0.1', port: registry.port, path: `/${HOT}`, agent: false });
          req.on('error', () => undefined);
          req.end();
          const { read } = await reading;
          registry.hotPath.enabled = true;
          expect(registry.hotPath.served - served).toBe(mode === 'hot' ? 1 : 0);
          req.destroy();
          await eventually(connections, (count) => count === open);
          release();
          await read;
          // A later request: by its end, whatever answering the first one logs has been written.
          const counts = countsSince(before, await scrape(target));
          const lines = requestLinesSince(registry, mark).map(({ reqId: _r, ms: _m, time: _t, ...rest }) => rest);
          outcome[mode] = { lines, counts };
        }
      } finally {
        Object.assign(reads, original);
      }
      expect.soft(outcome.hot, 'log lines and metrics of the request whose client left').toEqual(outcome.fastify);
    });

    it('a document read (not cached) fails: the same 500', async () => {
      const reads = target.registry.services.packageReads;
      const original = reads.document;
      reads.document = async () => {
        throw new Error('the database is on fire');
      };
      try {
        await comparePair(target, { path: '/com.acme.uncached', headers: { 'accept-encoding': 'gzip' } }, { status: 500 });
      } finally {
        reads.document = original;
      }
    });
  });
});
