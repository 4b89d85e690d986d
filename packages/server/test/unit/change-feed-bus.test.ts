import { describe, expect, it } from 'vitest';
import { SwitchableBus } from '@pkg/testkit';
import { ChangeFeedBus } from '../../src/storage/change-feed-bus.js';
import type { ChangeFeedPosition, PackageChangeFeed, TenantId } from '../../src/storage/ports.js';

/**
 * A log of writes the test fills and breaks: what the bus does when the database's log cannot be
 * read, and when it was not read for so long that its rows may be gone (the PostgreSQL log itself
 * is proved by test/contract/package-change-feed.test.ts).
 */
class ScriptedFeed implements PackageChangeFeed {
  pending: { tenant: TenantId; name: string }[] = [];
  failing = false;
  readonly asked: (ChangeFeedPosition | undefined)[] = [];

  async read(after: ChangeFeedPosition | undefined) {
    this.asked.push(after);
    if (this.failing) throw new Error('connection refused');
    const changed = after === undefined ? [] : this.pending.splice(0);
    return { changed, next: { feed: 'package-changes' as const } };
  }

  async prune(): Promise<void> {}
}

function feedBus() {
  let now = 0;
  const feed = new ScriptedFeed();
  const logged: string[] = [];
  const log = {
    info: (_: object, message: string) => logged.push(message),
    warn: (_: object, message: string) => logged.push(message),
  };
  const bus = new ChangeFeedBus(new SwitchableBus(), feed, { log, clock: () => now, readEveryMs: 3_600_000 });
  const heard: string[] = [];
  let resets = 0;
  bus.subscribe((tenant, name) => heard.push(`${tenant}/${name}`));
  bus.subscribeReset(() => resets++);
  return { bus, feed, logged, heard, resets: () => resets, advance: (ms: number) => (now += ms) };
}

describe('ChangeFeedBus', () => {
  it('keeps its last complete read while the log cannot be read, says so once, and tells what it missed after', async () => {
    const { bus, feed, logged, heard, advance } = feedBus();
    await bus.readNow();
    expect(bus.heardUntil).toBe(0);
    feed.failing = true;
    feed.pending.push({ tenant: '', name: 'com.a.b' });
    advance(500);
    await bus.readNow();
    advance(500);
    await bus.readNow();
    // Caches compare heardUntil with their clock: the failed reads must not move it.
    expect(bus.heardUntil).toBe(0);
    expect(logged).toEqual(['cannot read the log of package writes: cached documents expire after a second until it can']);
    feed.failing = false;
    advance(500);
    await bus.readNow();
    expect(heard).toEqual(['/com.a.b']);
    expect(bus.heardUntil).toBe(1500);
    expect(logged.at(-1)).toBe('reading the log of package writes again');
    await bus.close();
  });

  it('starts again, dropping what caches hold, when its last read is older than the log keeps rows', async () => {
    const { bus, feed, resets, advance } = feedBus();
    await bus.readNow();
    expect(resets()).toBe(1);
    await bus.readNow();
    expect(feed.asked.at(-1)).toBeDefined();
    expect(resets()).toBe(1);
    feed.failing = true;
    advance(6 * 60_000);
    await bus.readNow();
    feed.failing = false;
    await bus.readNow();
    // Read from the start, as on a first read: the rows it missed may have been pruned.
    expect(feed.asked.at(-1)).toBeUndefined();
    expect(resets()).toBe(2);
    await bus.close();
  });
});
