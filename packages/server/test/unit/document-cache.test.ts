import { describe, expect, it } from 'vitest';
import { DocumentCache, ENTRY_OVERHEAD } from '../../src/services/document-cache.js';
import { Representation } from '../../src/services/representation.js';
import { LocalInvalidationBus } from '../../src/storage/drivers/memory/memory-invalidation-bus.js';

function value(text: string) {
  return { representation: Representation.json({ text }, 'application/json'), value: { text } };
}

/** The bytes of `value(text)` without the object: what the cache holds of a document. */
function bytesOnly(text: string) {
  return { representation: value(text).representation, value: undefined };
}

describe('DocumentCache', () => {
  it('builds once and then serves the same bytes', async () => {
    const cache = new DocumentCache(new LocalInvalidationBus(), 1_000_000);
    let builds = 0;
    const build = async () => {
      builds++;
      return value('a');
    };
    const first = await cache.get('', 'com.a.b', 'full', build);
    const second = await cache.get('', 'com.a.b', 'full', build);
    expect(builds).toBe(1);
    expect(second?.representation).toBe(first?.representation);
  });

  it('counts a kept render by its gzip, and its identity bytes once a client asks for them', async () => {
    const cache = new DocumentCache(new LocalInvalidationBus(), 1_000_000);
    const document = { name: 'com.a.b', text: 'abc '.repeat(500) };
    const eager = Representation.json(document, 'application/json');
    const render = { form: 'full' as const, baseUrl: 'http://r', ...(await eager.storable()) };
    expect(render.coding).toBe('gzip');
    const stored = Representation.stored(render, 'application/json');
    await cache.get('', 'com.a.b', 'full', async () => ({ representation: stored, value: undefined }));
    expect(cache.size.bytes).toBe(ENTRY_OVERHEAD + render.body.length);
    // The same bytes and validators as the representation it was kept from.
    expect(stored.size).toBe(eager.body.length);
    expect(stored.etag).toBe(eager.etag);
    expect(stored.etagFor('gzip')).toBe(eager.etagFor('gzip'));
    expect(stored.body.equals(eager.body)).toBe(true);
    expect(cache.size.bytes).toBe(ENTRY_OVERHEAD + render.body.length + eager.body.length);
  });

  it('counts an entry holding an object only by the size given for it', async () => {
    const cache = new DocumentCache(new LocalInvalidationBus(), 1_000_000);
    const index = { '1.0.0': 'sha512-x' };
    const built = await cache.get('', 'com.a.b', 'files', async () => ({ value: index, jsonBytes: 100 }));
    expect(built?.value).toBe(index);
    expect(cache.peek('', 'com.a.b', 'files')?.value).toBe(index);
    expect(cache.size.bytes).toBe(ENTRY_OVERHEAD + 3 * 100);
  });

  it('shares one build between concurrent misses', async () => {
    const cache = new DocumentCache(new LocalInvalidationBus(), 1_000_000);
    let builds = 0;
    const build = async () => {
      builds++;
      await new Promise((resolve) => setImmediate(resolve));
      return value('a');
    };
    await Promise.all([1, 2, 3].map(() => cache.get('', 'com.a.b', 'full', build)));
    expect(builds).toBe(1);
  });

  it('drops every variant of a package when the bus announces a write to it', async () => {
    const bus = new LocalInvalidationBus();
    const cache = new DocumentCache(bus, 1_000_000);
    await cache.get('', 'com.a.b', 'full', async () => value('full'));
    await cache.get('', 'com.a.b', 'abbreviated', async () => value('abbr'));
    await cache.get('', 'com.a.other', 'full', async () => value('other'));
    await cache.get('tenant', 'com.a.b', 'full', async () => value('tenant'));
    expect(cache.size.entries).toBe(4);
    await bus.publish('', 'com.a.b');
    expect(cache.size.entries).toBe(2);
    const rebuilt = await cache.get('', 'com.a.b', 'full', async () => value('new'));
    expect(rebuilt?.value).toEqual({ text: 'new' });
  });

  it('does not keep a build that started before an invalidation', async () => {
    const bus = new LocalInvalidationBus();
    const cache = new DocumentCache(bus, 1_000_000);
    let release!: () => void;
    const slow = cache.get('', 'com.a.b', 'full', async () => {
      await new Promise<void>((resolve) => (release = resolve));
      return value('stale');
    });
    await new Promise((resolve) => setImmediate(resolve));
    await bus.publish('', 'com.a.b');
    release();
    expect((await slow)?.value).toEqual({ text: 'stale' });
    const next = await cache.get('', 'com.a.b', 'full', async () => value('fresh'));
    expect(next?.value).toEqual({ text: 'fresh' });
  });

  it('evicts the least recently used entries beyond its byte bound for one asked for more often, counting compressed forms', async () => {
    const big = (tag: string) => value(`${tag}:${'x'.repeat(2000)}`);
    const oneEntry = ENTRY_OVERHEAD + big('a').representation.body.length * 4;
    const bound = oneEntry * 4 + 200;
    const cache = new DocumentCache(new LocalInvalidationBus(), bound);
    for (const name of ['com.a.one', 'com.a.two', 'com.a.three', 'com.a.four'])
      await cache.get('', name, 'full', async () => big(name));
    expect(cache.size.entries).toBe(4);
    // Touch the first so that the second is now the least recently used.
    await cache.get('', 'com.a.one', 'full', async () => big('rebuilt'));
    // Asked for once, as often as com.a.two: it does not displace it.
    await cache.get('', 'com.a.five', 'full', async () => big('five'));
    expect(cache.stats.rejected).toBe(1);
    // Once more than com.a.two is not enough (see the next test); twice more, and it replaces it.
    await cache.get('', 'com.a.five', 'full', async () => big('five'));
    expect(cache.stats.rejected).toBe(2);
    await cache.get('', 'com.a.five', 'full', async () => big('five'));
    expect(cache.stats.rejected).toBe(2);
    expect(cache.size.entries).toBe(4);
    expect(cache.size.bytes).toBeLessThanOrEqual(bound);
    const builtAgain: string[] = [];
    for (const name of ['com.a.one', 'com.a.two']) {
      await cache.get('', name, 'full', async () => {
        builtAgain.push(name);
        return big(name);
      });
    }
    // com.a.two was evicted; com.a.one, used recently, was kept.
    expect(builtAgain[0]).toBe('com.a.two');

    const before = cache.size.bytes;
    const entry = await cache.get('', 'com.a.one', 'full', async () => big('x'));
    const gz = await entry!.representation!.encode('gzip');
    expect(cache.size.bytes).toBeLessThanOrEqual(before + gz.length);
  });

  it('keeps what it holds when more documents than fit are read in turn, so such a loop hits the share that fits', async () => {
    const doc = (name: string) => bytesOnly(`${name}:${'y'.repeat(500)}`);
    const oneEntry = ENTRY_OVERHEAD + doc('com.a.p00').representation.body.length;
    const cache = new DocumentCache(new LocalInvalidationBus(), oneEntry * 10);
    const names = Array.from({ length: 30 }, (_, i) => `com.a.p${String(i).padStart(2, '0')}`);
    let builds = 0;
    const readAll = async (from: number) => {
      for (let i = 0; i < names.length; i++) {
        const name = names[(from + i) % names.length]!;
        await cache.get('', name, 'abbreviated', async () => {
          builds++;
          return doc(name);
        });
      }
    };
    await readAll(0);
    expect(builds).toBe(30);
    builds = 0;
    // Starting past the cached ten: each document read then has one request more than they.
    await readAll(15);
    await readAll(15);
    // Least-recently-used alone would build all 60 again: each read evicts the next one wanted.
    expect(builds).toBe(40);
    expect(cache.size.entries).toBe(10);
    const hot = names[29]!;
    // A document asked for more often than the others gets in even so.
    for (let i = 0; i < 3; i++) await cache.get('', hot, 'abbreviated', async () => doc(hot));
    let rebuilt = false;
    await cache.get('', hot, 'abbreviated', async () => ((rebuilt = true), doc(hot)));
    expect(rebuilt).toBe(false);
  });

  it("counts each entry's own room, so many small documents cannot pile up past the bound", async () => {
    const cache = new DocumentCache(new LocalInvalidationBus(), 10 * ENTRY_OVERHEAD);
    for (let i = 0; i < 100; i++) {
      await cache.get('', `com.a.p${i}`, 'abbreviated', async () => bytesOnly(`p${i}`));
    }
    // 100 documents of about 15 bytes would fit 1,500 bytes; each costs its entry too.
    expect(cache.size.entries).toBeLessThanOrEqual(10);
    expect(cache.size.entries).toBeGreaterThan(5);
    expect(cache.size.bytes).toBeLessThanOrEqual(10 * ENTRY_OVERHEAD);
  });

  it('does not count a compressed form finished after its entry left the cache', async () => {
    const bus = new LocalInvalidationBus();
    const cache = new DocumentCache(bus, 1_000_000);
    const entry = await cache.get('', 'com.a.gone', 'full', async () => value('x'.repeat(4000)));
    const compressing = entry!.representation!.encode('gzip');
    await bus.publish('', 'com.a.gone');
    expect(cache.size).toEqual({ entries: 0, bytes: 0 });
    expect((await compressing).length).toBeGreaterThan(0);
    expect(cache.size).toEqual({ entries: 0, bytes: 0 });
  });

  it('remembers a missing package until a write to it is announced', async () => {
    const bus = new LocalInvalidationBus();
    const cache = new DocumentCache(bus, 1_000_000);
    let builds = 0;
    const missing = async () => {
      builds++;
      return undefined;
    };
    expect(await cache.get('', 'com.a.none', 'full', missing)).toBeUndefined();
    expect(await cache.get('', 'com.a.none', 'full', missing)).toBeUndefined();
    expect(builds).toBe(1);
    await bus.publish('', 'com.a.none');
    const created = await cache.get('', 'com.a.none', 'full', async () => ({
      representation: Representation.json({}, 'application/json'),
      value: {},
    }));
    expect(created?.value).toEqual({});
  });
});
