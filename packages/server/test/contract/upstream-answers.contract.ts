import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { UPSTREAM_ANSWER_KEEP_MS, type UpstreamAnswerStore } from '../../src/storage/ports.js';

/** A store for one test: `open` may be called twice (two nodes on one database, where it is shared). */
export interface UpstreamAnswerDatabase {
  open(): Promise<UpstreamAnswerStore>;
  destroy(): Promise<void>;
}

const NOW = Date.parse('2026-01-01T00:00:00.000Z');
const answer = (text: string, freshUntil = NOW + 60_000) => ({ body: Buffer.from(text), freshUntil });

/** Every driver of UpstreamAnswerStore runs this suite; `shared` drivers also the second node's part. */
export function upstreamAnswerContract(
  driver: string,
  freshDatabase: () => Promise<UpstreamAnswerDatabase>,
  { shared }: { shared: boolean },
): void {
  describe(`UpstreamAnswerStore contract: ${driver}`, () => {
    let database: UpstreamAnswerDatabase;
    let store: UpstreamAnswerStore;

    beforeEach(async () => {
      database = await freshDatabase();
      store = await database.open();
    });
    afterEach(async () => {
      await database.destroy();
    });

    it('holds what was put, byte for byte with its freshness, and nothing else', async () => {
      expect(await store.get([])).toEqual(new Map());
      expect(await store.get(['advisories:a'])).toEqual(new Map());
      const binary = Buffer.from([0, 255, 10, 0, 128]);
      await store.put(
        new Map([
          ['advisories:a', answer('[{"id":1}]')],
          ['attestations:b', { body: binary, freshUntil: NOW - 1 }],
          ['advisories:empty', answer('')],
        ]),
        NOW,
      );
      const held = await store.get(['advisories:a', 'attestations:b', 'advisories:empty', 'advisories:none']);
      expect([...held.keys()].sort()).toEqual(['advisories:a', 'advisories:empty', 'attestations:b']);
      expect(held.get('advisories:a')).toEqual(answer('[{"id":1}]'));
      // Stale answers are held too: they serve while the upstream is down.
      expect(held.get('attestations:b')).toEqual({ body: binary, freshUntil: NOW - 1 });
      expect(held.get('advisories:empty')!.body.length).toBe(0);
    });

    it('replaces an answer put again', async () => {
      await store.put(new Map([['advisories:a', answer('old', NOW + 1)]]), NOW);
      await store.put(new Map([['advisories:a', answer('new', NOW + 2)]]), NOW + 1);
      expect((await store.get(['advisories:a'])).get('advisories:a')).toEqual(answer('new', NOW + 2));
    });

    it('drops answers not stored again for the keep time, at the next put', async () => {
      await store.put(new Map([['advisories:old', answer('old')]]), NOW);
      await store.put(new Map([['advisories:recent', answer('recent')]]), NOW + UPSTREAM_ANSWER_KEEP_MS / 2);
      expect((await store.get(['advisories:old'])).size).toBe(1);
      await store.put(new Map([['advisories:next', answer('next')]]), NOW + UPSTREAM_ANSWER_KEEP_MS + 1);
      const held = await store.get(['advisories:old', 'advisories:recent', 'advisories:next']);
      expect([...held.keys()].sort()).toEqual(['advisories:next', 'advisories:recent']);
    });

    // Only a shared driver has another node to read it: a per-node one defines no such test.
    if (shared)
      it('is read by another node on the same database', async () => {
        const other = await database.open();
        await store.put(new Map([['advisories:a', answer('from node one')]]), NOW);
        expect((await other.get(['advisories:a'])).get('advisories:a')).toEqual(answer('from node one'));
      });
  });
}
