import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { InvalidationBus, TenantId } from '../../src/storage/ports.js';

/** A channel for one test: buses opened on it are like nodes of one deployment. */
export interface BusChannel {
  open(): Promise<InvalidationBus>;
  destroy(): Promise<void>;
}

export interface BusContractOptions {
  /** Whether buses opened on one channel hear each other (false for the one-process bus). */
  shared: boolean;
}

type Heard = [TenantId, string];

/** The definition of "an invalidation bus works": every driver runs this suite. */
export function invalidationBusContract(
  driver: string,
  freshChannel: () => Promise<BusChannel>,
  options: BusContractOptions,
): void {
  describe(`InvalidationBus contract: ${driver}`, () => {
    let channel: BusChannel;
    let opened: InvalidationBus[];

    async function open(): Promise<{ bus: InvalidationBus; heard: Heard[] }> {
      const bus = await channel.open();
      opened.push(bus);
      const heard: Heard[] = [];
      bus.subscribe((tenant, name) => heard.push([tenant, name]));
      return { bus, heard };
    }

    beforeEach(async () => {
      channel = await freshChannel();
      opened = [];
    });

    afterEach(async () => {
      for (const bus of opened) await bus.close();
      await channel.destroy();
    });

    it('tells its own subscribers at once, exactly once', async () => {
      const a = await open();
      const second: Heard[] = [];
      a.bus.subscribe((tenant, name) => second.push([tenant, name]));
      await a.bus.publish('', 'com.acme.tool');
      await a.bus.publish('acme', 'com.acme.tool');
      expect(a.heard).toEqual([
        ['', 'com.acme.tool'],
        ['acme', 'com.acme.tool'],
      ]);
      expect(second).toEqual(a.heard);
      if (options.shared) {
        // Its own message coming back over the channel is not delivered a second time.
        const b = await open();
        await b.bus.publish('', 'com.acme.marker');
        await waitFor(() => a.heard.length === 3);
        expect(a.heard).toEqual([
          ['', 'com.acme.tool'],
          ['acme', 'com.acme.tool'],
          ['', 'com.acme.marker'],
        ]);
      }
    });

    it('is connected once open', async () => {
      const a = await open();
      expect(a.bus.connected).toBe(true);
    });

    it('keeps going when a subscriber throws', async () => {
      const a = await open();
      a.bus.subscribe(() => {
        throw new Error('broken cache');
      });
      const after: Heard[] = [];
      a.bus.subscribe((tenant, name) => after.push([tenant, name]));
      await expect(a.bus.publish('', 'com.acme.tool')).resolves.toBeUndefined();
      expect(after).toEqual([['', 'com.acme.tool']]);
    });

    // Only defined for shared buses: a one-process bus has no other process to tell.
    if (options.shared) {
      describe('between processes', () => {
        it('tells the subscribers of another bus on the channel', async () => {
          const a = await open();
          const b = await open();
          const c = await open();
          await a.bus.publish('acme', 'com.acme.tool');
          await waitFor(() => b.heard.length === 1 && c.heard.length === 1);
          expect(b.heard).toEqual([['acme', 'com.acme.tool']]);
          expect(c.heard).toEqual([['acme', 'com.acme.tool']]);
        });

        it('delivers a burst of messages whole and in order', async () => {
          const a = await open();
          const b = await open();
          const sent: Heard[] = Array.from({ length: 50 }, (_, i) => [i % 3 ? '' : 'acme', `com.acme.p${i}`]);
          for (const [tenant, name] of sent) await a.bus.publish(tenant, name);
          await waitFor(() => b.heard.length === sent.length);
          expect(b.heard).toEqual(sent);
        });

        it('does not reach another channel', async () => {
          const a = await open();
          const b = await open();
          const otherChannel = await freshChannel();
          const other = await otherChannel.open();
          try {
            const heard: Heard[] = [];
            other.subscribe((tenant, name) => heard.push([tenant, name]));
            await a.bus.publish('', 'com.acme.tool');
            await b.bus.publish('', 'com.acme.marker');
            await waitFor(() => a.heard.length === 2);
            expect(heard).toEqual([]);
          } finally {
            await other.close();
            await otherChannel.destroy();
          }
        });
      });
    }
  });
}

/** Waits (bounded) until `condition` holds; the assertions that follow say what was expected. */
export async function waitFor(condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
}
