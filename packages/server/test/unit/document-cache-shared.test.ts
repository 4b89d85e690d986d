import { describe, expect, it } from 'vitest';
import { DocumentCache } from '../../src/services/document-cache.js';
import { Representation } from '../../src/services/representation.js';
import { SwitchableBus } from '@pkg/testkit';

function value(text: string) {
  return { representation: Representation.json({ text }, 'application/json'), value: { text } };
}

describe('DocumentCache shared by several nodes', () => {
  it('serves nothing from memory while the bus is deaf to other nodes, and caches again once it hears', async () => {
    const bus = new SwitchableBus();
    const cache = new DocumentCache(bus, 1_000_000);
    let builds = 0;
    const build = async () => value(`build ${++builds}`);
    await cache.get('', 'com.a.b', 'full', build);
    bus.connected = false;
    expect((await cache.get('', 'com.a.b', 'full', build))?.value).toEqual({ text: 'build 2' });
    expect((await cache.get('', 'com.a.b', 'full', build))?.value).toEqual({ text: 'build 3' });
    bus.connected = true;
    bus.reset();
    expect((await cache.get('', 'com.a.b', 'full', build))?.value).toEqual({ text: 'build 4' });
    expect((await cache.get('', 'com.a.b', 'full', build))?.value).toEqual({ text: 'build 4' });
    expect(cache.stats).toEqual({ hits: 1, misses: 4, rejected: 0 });
  });

  it('drops everything on a reset, and does not keep a build that started before it', async () => {
    const bus = new SwitchableBus();
    const cache = new DocumentCache(bus, 1_000_000);
    await cache.get('', 'com.a.b', 'full', async () => value('old'));
    await cache.get('acme', 'com.a.c', 'full', async () => value('old'));
    let release!: () => void;
    const slow = cache.get('', 'com.a.d', 'full', async () => {
      await new Promise<void>((resolve) => (release = resolve));
      return value('read before the reset');
    });
    bus.reset();
    expect(cache.size.entries).toBe(0);
    release();
    await slow;
    expect((await cache.get('', 'com.a.d', 'full', async () => value('fresh')))?.value).toEqual({ text: 'fresh' });
    expect((await cache.get('', 'com.a.b', 'full', async () => value('new')))?.value).toEqual({ text: 'new' });
  });

  it('rebuilds an entry older than maxAgeMs even when no message came', async () => {
    let now = 1000;
    const cache = new DocumentCache(new SwitchableBus(), 1_000_000, { maxAgeMs: 1000, clock: () => now });
    let builds = 0;
    const build = async () => value(`build ${++builds}`);
    await cache.get('', 'com.a.b', 'full', build);
    now += 1000;
    expect((await cache.get('', 'com.a.b', 'full', build))?.value).toEqual({ text: 'build 1' });
    now += 1;
    expect((await cache.get('', 'com.a.b', 'full', build))?.value).toEqual({ text: 'build 2' });
    expect((await cache.get('', 'com.a.b', 'full', build))?.value).toEqual({ text: 'build 2' });
  });

  it('keeps serving an entry of any age while the log of writes was read within maxAgeMs, and rebuilds it when the reads stop', async () => {
    let now = 1000;
    const bus = new SwitchableBus();
    const cache = new DocumentCache(bus, 1_000_000, { maxAgeMs: 1000, clock: () => now });
    let builds = 0;
    const build = async () => value(`build ${++builds}`);
    await cache.get('', 'com.a.b', 'full', build);
    // Read again and again: the entry stays whatever its age.
    for (let read = 0; read < 5; read++) {
      now += 900;
      bus.heardUntil = now;
      expect((await cache.get('', 'com.a.b', 'full', build))?.value).toEqual({ text: 'build 1' });
    }
    // The reads stopped (the database unreachable): within maxAgeMs of the last one the entry
    // is served, after it the entry is built again.
    now += 1000;
    expect((await cache.get('', 'com.a.b', 'full', build))?.value).toEqual({ text: 'build 1' });
    now += 1;
    expect((await cache.get('', 'com.a.b', 'full', build))?.value).toEqual({ text: 'build 2' });
    expect(cache.stats).toEqual({ hits: 6, misses: 2, rejected: 0 });
  });
});
