import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PackageDocument } from '@pkg/protocol';
import { loginUser, provenanceBundle, publishBody, request, startRegistry, type TestRegistry } from '@pkg/testkit';

/**
 * The attestations of a proxied package: `/-/npm/v1/attestations/<name>@<version>` answers the
 * upstream's (another real registry), fetched through the uplink, byte for byte, and cached;
 * `dist.attestations` stays the upstream's.
 */
const NAME = 'com.upstream.provenant';
let upstream: TestRegistry;
let downstream: TestRegistry;
let upstreamClosed = false;

beforeAll(async () => {
  upstream = await startRegistry();
  const token = await loginUser(upstream.url, 'ci');
  for (const version of ['1.0.0', '1.1.0']) {
    const { body, tarball } = publishBody(NAME, version);
    const bundle = await provenanceBundle(NAME, version, tarball);
    (body._attachments as Record<string, unknown>)[`${NAME}-${version}.sigstore`] = {
      content_type: 'application/vnd.dev.sigstore.bundle.v0.3+json',
      data: bundle,
      length: bundle.length,
    };
    expect((await request(`${upstream.url}/${NAME}`, { method: 'PUT', token, body })).status).toBe(201);
  }
  downstream = await startRegistry({
    settings: {
      uplinks: JSON.stringify([{ name: 'upstream', url: upstream.url, packages: ['com.upstream.*'], maxAge: 3600, timeout: 5 }]),
    },
  });
});
afterAll(async () => {
  await downstream?.close();
  if (!upstreamClosed) await upstream?.close();
});

describe('attestations of proxied packages', () => {
  it("answer the upstream's as it wrote them, cached byte for byte; dist.attestations is the upstream's", async () => {
    const original = await request(`${upstream.url}/-/npm/v1/attestations/${NAME}@1.0.0`);
    expect(original.status).toBe(200);
    const proxied = await request(`${downstream.url}/-/npm/v1/attestations/${NAME}@1.0.0`);
    expect(proxied.status).toBe(200);
    expect(proxied.headers.get('content-type')).toMatch(/^application\/json/);
    // The upstream signs its publish attestation anew on each answer (ECDSA): the same statement, its key.
    const [provenance, publish] = proxied.body.attestations;
    expect(provenance).toEqual(original.body.attestations[0]);
    expect(publish.bundle.dsseEnvelope.payload).toBe(original.body.attestations[1].bundle.dsseEnvelope.payload);
    const upstreamKey = (await request(`${upstream.url}/-/npm/v1/keys`)).body.keys[0].keyid;
    const ownKey = (await request(`${downstream.url}/-/npm/v1/keys`)).body.keys[0].keyid;
    expect(publish.bundle.dsseEnvelope.signatures[0].keyid).toBe(upstreamKey);
    expect(ownKey).not.toBe(upstreamKey);
    // Cached: the very bytes again.
    expect((await request(`${downstream.url}/-/npm/v1/attestations/${NAME}@1.0.0`)).text).toBe(proxied.text);

    const upstreamDist = (await request<PackageDocument>(`${upstream.url}/${NAME}`)).body.versions['1.0.0']!.dist;
    const dist = (await request<PackageDocument>(`${downstream.url}/${NAME}`)).body.versions['1.0.0']!.dist;
    expect(JSON.stringify(dist.attestations)).toBe(JSON.stringify(upstreamDist.attestations));
  });

  it('answers 404 for a version the upstream has no attestations of, and for one that is not a version', async () => {
    const unknown = await request(`${downstream.url}/-/npm/v1/attestations/${NAME}@9.9.9`);
    expect(unknown.status).toBe(404);
    expect(unknown.body.details).toMatch(/no attestations/);
    expect((await request(`${downstream.url}/-/npm/v1/attestations/${NAME}@latest`)).status).toBe(404);
  });

  it('serves the cached answer while the upstream is down, and says why it cannot answer the rest', async () => {
    const before = (await request(`${downstream.url}/-/npm/v1/attestations/${NAME}@1.0.0`)).text;
    await upstream.close();
    upstreamClosed = true;
    const cached = await request(`${downstream.url}/-/npm/v1/attestations/${NAME}@1.0.0`);
    expect(cached.status).toBe(200);
    expect(cached.text).toBe(before);
    const never = await request(`${downstream.url}/-/npm/v1/attestations/${NAME}@1.1.0`);
    expect(never.status).toBe(503);
    expect(never.body).toEqual({
      error: expect.any(String),
      code: 'UPSTREAM_UNAVAILABLE',
      details: expect.stringMatching(/'upstream' cannot be reached/),
    });
    expect(never.text).not.toContain(upstream.url);
  });
});
