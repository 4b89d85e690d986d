import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loginUser, publishVersion, request, startRegistry, type TestRegistry } from '@pkg/testkit';

/**
 * Advisories of proxied packages: the audit endpoints of a registry ask its uplink (another
 * real registry) about the names it covers, cache the answer for the uplink's maxAge, and
 * when the uplink is down answer from the cache or from their own advisories, with a notice,
 * never a failure.
 */
const PROXIED = 'com.upstream.loader';
const LOCAL = 'com.local.tool';
let upstream: TestRegistry;
let downstream: TestRegistry;
let upstreamToken: string;
let upstreamClosed = false;

const flaw = {
  severity: 'critical',
  vulnerable_versions: '<1.0.2',
  patched_versions: '>=1.0.2',
  title: 'Remote code execution in the level loader',
};
const bulk = (body: unknown) => request(`${downstream.url}/-/npm/v1/security/advisories/bulk`, { method: 'POST', body });

beforeAll(async () => {
  upstream = await startRegistry();
  upstreamToken = await loginUser(upstream.url, 'publisher');
  for (const version of ['1.0.0', '1.0.1', '1.0.2'])
    expect((await publishVersion(upstream.url, upstreamToken, PROXIED, version)).status).toBe(201);
  const advisory = await request(`${upstream.url}/-/pkg/v1/advisories/${PROXIED}`, {
    method: 'POST',
    token: upstreamToken,
    body: { ...flaw, id: 'CVE-2026-0001' },
  });
  expect(advisory.status).toBe(201);

  downstream = await startRegistry({
    settings: {
      uplinks: JSON.stringify([{ name: 'upstream', url: upstream.url, packages: ['com.upstream.*'], maxAge: 3600, timeout: 5 }]),
    },
  });
  const local = await loginUser(downstream.url, 'owner');
  expect((await publishVersion(downstream.url, local, LOCAL, '2.0.0')).status).toBe(201);
  expect(
    (
      await request(`${downstream.url}/-/pkg/v1/advisories/${LOCAL}`, {
        method: 'POST',
        token: local,
        body: { ...flaw, vulnerable_versions: '<=2.0.0', patched_versions: '>2.0.0', id: 'LOCAL-1' },
      })
    ).status,
  ).toBe(201);
});
afterAll(async () => {
  await downstream?.close();
  if (!upstreamClosed) await upstream?.close();
});

describe('advisories asked of uplinks', () => {
  it("reports the upstream's advisories of a proxied package beside the registry's own", async () => {
    const res = await bulk({ [PROXIED]: ['1.0.1'], [LOCAL]: ['2.0.0'] });
    expect(res.status).toBe(200);
    expect(res.headers.get('npm-notice')).toBeNull();
    expect(res.body[PROXIED]).toEqual([
      expect.objectContaining({
        id: 'CVE-2026-0001',
        severity: 'critical',
        vulnerable_versions: '<1.0.2',
        // The upstream's link: the advisory is the upstream's.
        url: `${upstream.url}/-/web/package/${PROXIED}/advisories#advisory-CVE-2026-0001`,
      }),
    ]);
    expect(res.body[LOCAL]).toEqual([expect.objectContaining({ id: 'LOCAL-1' })]);
    // A fixed version is not affected upstream either.
    expect((await bulk({ [PROXIED]: ['1.0.2'] })).body).toEqual({});
  });

  it("answers the quick audit (npm's fallback) with them too", async () => {
    const res = await request(`${downstream.url}/-/npm/v1/security/audits/quick`, {
      method: 'POST',
      body: { name: 'game', lockfileVersion: 3, packages: { '': {}, [`node_modules/${PROXIED}`]: { version: '1.0.0' } } },
    });
    expect(res.status).toBe(200);
    expect(res.body.advisories[`${PROXIED}:CVE-2026-0001`]).toMatchObject({
      module_name: PROXIED,
      severity: 'critical',
      patched_versions: '>=1.0.2',
      findings: [{ version: '1.0.0', paths: [PROXIED] }],
    });
    expect(res.body.metadata.vulnerabilities.critical).toBe(1);
  });

  it("keeps the upstream's answer for the uplink's maxAge", async () => {
    await request(`${upstream.url}/-/pkg/v1/advisories/${PROXIED}`, {
      method: 'POST',
      token: upstreamToken,
      body: { ...flaw, id: 'CVE-2026-0002', severity: 'low', title: 'Another flaw' },
    });
    // 1.0.1 was asked about before: cached. 0.8.0 was not: asked now.
    expect((await bulk({ [PROXIED]: ['1.0.1'] })).body[PROXIED].map((a: { id: string }) => a.id)).toEqual(['CVE-2026-0001']);
    expect((await bulk({ [PROXIED]: ['0.8.0'] })).body[PROXIED].map((a: { id: string }) => a.id)).toEqual([
      'CVE-2026-0001',
      'CVE-2026-0002',
    ]);
  });

  it('degrades to what it has when the upstream is down, with a notice, never a failure', async () => {
    await upstream.close();
    upstreamClosed = true;
    // Cached before: still reported.
    const cached = await bulk({ [PROXIED]: ['1.0.1', '0.8.0'], [LOCAL]: ['2.0.0'] });
    expect(cached.status).toBe(200);
    expect(cached.body[PROXIED].map((a: { id: string }) => a.id).sort()).toEqual(['CVE-2026-0001', 'CVE-2026-0002']);
    // Never asked about: the local advisories only, and a notice npm prints.
    const fresh = await bulk({ [PROXIED]: ['0.9.0'], [LOCAL]: ['2.0.0'] });
    expect(fresh.status).toBe(200);
    expect(fresh.body).toEqual({ [LOCAL]: [expect.objectContaining({ id: 'LOCAL-1' })] });
    expect(fresh.headers.get('npm-notice')).toMatch(
      /^The upstream registry 'upstream' could not be asked for advisories \(.+\): the advisories of the 1 package it serves are those cached earlier/,
    );
    const quick = await request(`${downstream.url}/-/npm/v1/security/audits/quick`, {
      method: 'POST',
      body: { dependencies: { [PROXIED]: { version: '0.9.1' } } },
    });
    expect(quick.status).toBe(200);
    expect(quick.headers.get('npm-notice')).toMatch(/could not be asked for advisories/);
  });
});
