import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loginUser, publishVersion, request, startRegistry, type TestRegistry } from '@pkg/testkit';
import { ChangeFeedBus } from '../../src/storage/change-feed-bus.js';

/**
 * Two nodes on one PostgreSQL database: each keeps documents in its memory for as long as it
 * keeps reading the database's log of package writes, and hears from that log of a write that
 * sent no message (its node died between the commit and the message). (A `.scale-out.test.ts`
 * file runs on the scale-out profile only, see vitest.config.ts.)
 */
const NAME = 'com.example.shared';
let nodeA: TestRegistry;
let nodeB: TestRegistry;

function feedOf(node: TestRegistry): ChangeFeedBus {
  expect(node.storage.bus).toBeInstanceOf(ChangeFeedBus);
  return node.storage.bus as ChangeFeedBus;
}

describe('documents cached by nodes sharing one database', () => {
  beforeAll(async () => {
    nodeA = await startRegistry();
    nodeB = await startRegistry({ dataDir: nodeA.dataDir });
    const token = await loginUser(nodeA.url, 'alice');
    expect((await publishVersion(nodeA.url, token, NAME, '1.0.0')).status).toBe(201);
    // Node B hears of the publish twice, by its message and by its next read of the log: once
    // that read is done, nothing more of it can drop what B caches next.
    await feedOf(nodeB).readNow();
  });
  afterAll(async () => {
    await nodeB?.close();
    await nodeA?.close();
  });

  it('answers from memory past the second a document used to be kept, while the log is read', async () => {
    expect((await request(`${nodeB.url}/${NAME}`)).status).toBe(200);
    const before = nodeB.services.documentCache.stats;
    await new Promise((resolve) => setTimeout(resolve, 1500));
    // The node reads the log every fraction of a second by itself; read it now so that a loaded
    // machine's late timer cannot make this read miss.
    await feedOf(nodeB).readNow();
    const again = await request(`${nodeB.url}/${NAME}`);
    expect(again.status).toBe(200);
    const after = nodeB.services.documentCache.stats;
    expect(after.hits).toBe(before.hits + 1);
    expect(after.misses).toBe(before.misses);
  });

  it('serves a write that sent no message once its node has read the log', async () => {
    expect(Object.keys((await request(`${nodeB.url}/${NAME}`)).body.versions)).toEqual(['1.0.0']);
    // Written through node A's store alone: no service announced it on the bus.
    await nodeA.storage.packages.package('', NAME).update((current) => {
      const document = structuredClone(current!.document);
      document.description = 'written without a message';
      return { next: { ...current!, document }, result: null };
    });
    await feedOf(nodeB).readNow();
    expect((await request(`${nodeB.url}/${NAME}`)).body.description).toBe('written without a message');
  });
});
