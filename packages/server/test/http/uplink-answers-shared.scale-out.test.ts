import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loginUser, publishVersion, request, startRegistry, type TestRegistry } from '@pkg/testkit';

/**
 * On the scale-out profile the upstream's advisories are kept in the shared database: a node
 * that never asked the upstream answers from what another node asked, also while the upstream
 * is down. (On the embedded default one node runs, and keeps them in its memory: a
 * `.scale-out.test.ts` file runs on the scale-out profile only, see vitest.config.ts.)
 */
const PROXIED = 'com.upstream.shared';
let upstream: TestRegistry;
let nodeA: TestRegistry;
let nodeB: TestRegistry;
let upstreamClosed = false;

describe('upstream advisories shared by the nodes', () => {
  beforeAll(async () => {
    upstream = await startRegistry();
    const token = await loginUser(upstream.url, 'vendor');
    for (const version of ['1.0.0', '1.0.1'])
      expect((await publishVersion(upstream.url, token, PROXIED, version)).status).toBe(201);
    const advisory = await request(`${upstream.url}/-/pkg/v1/advisories/${PROXIED}`, {
      method: 'POST',
      token,
      body: { id: 'CVE-2026-0042', severity: 'high', vulnerable_versions: '<1.0.1', title: 'Shared flaw' },
    });
    expect(advisory.status).toBe(201);
    const settings = {
      uplinks: JSON.stringify([{ name: 'vendor', url: upstream.url, packages: ['com.upstream.*'], maxAge: 3600, timeout: 5 }]),
    };
    nodeA = await startRegistry({ settings });
    nodeB = await startRegistry({ settings, dataDir: nodeA.dataDir });
  });
  afterAll(async () => {
    await nodeB?.close();
    await nodeA?.close();
    if (!upstreamClosed) await upstream?.close();
  });

  it('a node that never asked answers from what another node asked, with the upstream down', async () => {
    const bulk = (node: TestRegistry) =>
      request(`${node.url}/-/npm/v1/security/advisories/bulk`, { method: 'POST', body: { [PROXIED]: ['1.0.0'] } });
    const first = await bulk(nodeA);
    expect(first.status).toBe(200);
    expect(first.body[PROXIED]).toEqual([expect.objectContaining({ id: 'CVE-2026-0042', severity: 'high' })]);
    await upstream.close();
    upstreamClosed = true;
    const other = await bulk(nodeB);
    expect(other.status).toBe(200);
    expect(other.headers.get('npm-notice')).toBeNull();
    expect(other.body).toEqual(first.body);
  });
});
