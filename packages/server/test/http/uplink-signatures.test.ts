import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PackageDocument, VersionRecord } from '@pkg/protocol';
import {
  loginUser,
  npmRegistryKeys,
  npmSignatureChecks,
  publishVersion,
  request,
  startRegistry,
  type TestRegistry,
} from '@pkg/testkit';
import { signVersionsPublishedBefore } from '../../src/services/signature-backfill.js';

/**
 * A proxied package keeps its upstream's signatures and attestations byte for byte and is never
 * signed again; this registry's keys endpoint lists the upstream's keys beside its own, so npm's
 * check (which asks the registry it talks to) verifies them.
 */
const NAME = 'com.upstream.signed';
let upstream: TestRegistry;
let downstream: TestRegistry;
let cache: string;
/** What npm's registry adds for a package published with provenance. */
const ATTESTATIONS = {
  url: `https://registry.npmjs.org/-/npm/v1/attestations/${NAME}@1.0.0`,
  provenance: { predicateType: 'https://slsa.dev/provenance/v1' },
};

beforeAll(async () => {
  upstream = await startRegistry();
  const token = await loginUser(upstream.url, 'publisher');
  expect((await publishVersion(upstream.url, token, NAME, '1.0.0')).status).toBe(201);
  await upstream.storage.packages.package('', NAME).update((current) => {
    const document = structuredClone(current!.document);
    document.versions['1.0.0']!.dist.attestations = ATTESTATIONS;
    return { next: { ...current!, document }, result: null };
  });
  await upstream.storage.bus.publish('', NAME);
  downstream = await startRegistry({
    settings: { uplinks: JSON.stringify([{ name: 'upstream', url: upstream.url, packages: ['com.upstream.*'] }]) },
  });
  cache = await mkdtemp(path.join(tmpdir(), 'pkg-uplink-signatures-'));
});
afterAll(async () => {
  await downstream?.close();
  await upstream?.close();
  await rm(cache, { recursive: true, force: true });
});

describe('signatures of proxied packages', () => {
  it("arrive unchanged in every document form, and the upstream's keys are listed", async () => {
    const original = (await request<VersionRecord>(`${upstream.url}/${NAME}/1.0.0`)).body.dist;
    expect(original.signatures).toHaveLength(1);
    const full = (await request<PackageDocument>(`${downstream.url}/${NAME}`)).body.versions['1.0.0']!;
    const abbreviated = (
      await request<PackageDocument>(`${downstream.url}/${NAME}`, { headers: { accept: 'application/vnd.npm.install-v1+json' } })
    ).body.versions['1.0.0']!;
    const version = (await request<VersionRecord>(`${downstream.url}/${NAME}/1.0.0`)).body;
    for (const record of [full, abbreviated, version]) {
      expect(JSON.stringify(record.dist.signatures)).toBe(JSON.stringify(original.signatures));
      expect(JSON.stringify(record.dist.attestations)).toBe(JSON.stringify(ATTESTATIONS));
    }

    const upstreamKeys = (await request<{ keys: { keyid: string }[] }>(`${upstream.url}/-/npm/v1/keys`)).body.keys;
    const keys = (await request<{ keys: { keyid: string }[] }>(`${downstream.url}/-/npm/v1/keys`)).body.keys;
    expect(keys).toHaveLength(2);
    expect(keys[1]).toEqual(upstreamKeys[0]);
    expect(keys[0]!.keyid).not.toBe(upstreamKeys[0]!.keyid);
  });

  it('are never signed again, by the one-time job either', async () => {
    const before = (await downstream.storage.packages.package('', NAME).read())!.document;
    await signVersionsPublishedBefore({ ...downstream.storage, now: () => new Date() });
    expect((await downstream.storage.packages.package('', NAME).read())!.document).toEqual(before);
  });

  it.each(npmSignatureChecks().map((check) => [check.label, check] as const))(
    "pass %s's signature check through this registry",
    async (label, check) => {
      const keys = (await request(`${downstream.url}/-/npm/v1/keys`)).body;
      const manifest = await check.verify(`${NAME}@1.0.0`, downstream.url, npmRegistryKeys(keys), path.join(cache, label));
      expect(manifest._signatures).toEqual((await request<VersionRecord>(`${upstream.url}/${NAME}/1.0.0`)).body.dist.signatures);
    },
  );
});
