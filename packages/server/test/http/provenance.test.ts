import { verify, createPublicKey } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PackageDocument, VersionRecord } from '@pkg/protocol';
import {
  loginUser,
  provenanceBundle,
  publishBody,
  request,
  startRegistry,
  storeSnapshot,
  type ProvenanceOptions,
  type TestRegistry,
} from '@pkg/testkit';

/**
 * The body `npm publish --provenance` sends (a `.sigstore` bundle beside the tarball): checked
 * against this package, version and tarball, kept, announced in `dist.attestations` and served
 * with the registry's own publish attestation. (npm itself makes such a body only inside a CI
 * with an OIDC identity and Sigstore's servers: the body is built here as npm builds it.)
 */
let registry: TestRegistry;
let token: string;

beforeAll(async () => {
  registry = await startRegistry();
  token = await loginUser(registry.url, 'ci');
});
afterAll(async () => {
  await registry.close();
});

async function withProvenance(name: string, version: string, options: ProvenanceOptions = {}, bundleFor = { name, version }) {
  const { body, tarball } = publishBody(name, version);
  const bundle = await provenanceBundle(bundleFor.name, bundleFor.version, tarball, options);
  (body._attachments as Record<string, unknown>)[`${name}-${version}.sigstore`] = {
    content_type: 'application/vnd.dev.sigstore.bundle.v0.3+json',
    data: bundle,
    length: bundle.length,
  };
  return { body, bundle };
}

describe('publish with provenance', () => {
  const name = 'com.acme.provenant';

  it('is accepted; every document form names the attestations; the endpoint serves both bundles', async () => {
    const { body, bundle } = await withProvenance(name, '1.0.0');
    expect((await request(`${registry.url}/${name}`, { method: 'PUT', token, body })).status).toBe(201);
    const expected = {
      url: `${registry.url}/-/npm/v1/attestations/${name}@1.0.0`,
      provenance: { predicateType: 'https://slsa.dev/provenance/v1' },
    };
    const full = (await request<PackageDocument>(`${registry.url}/${name}`)).body.versions['1.0.0']!;
    const abbreviated = (
      await request<PackageDocument>(`${registry.url}/${name}`, { headers: { accept: 'application/vnd.npm.install-v1+json' } })
    ).body.versions['1.0.0']!;
    const version = (await request<VersionRecord>(`${registry.url}/${name}/1.0.0`)).body;
    for (const record of [full, abbreviated, version]) expect(record.dist.attestations).toEqual(expected);

    const res = await request(expected.url);
    expect(res.status).toBe(200);
    const [provenance, publish] = res.body.attestations;
    expect(provenance).toEqual({ predicateType: 'https://slsa.dev/provenance/v1', bundle: JSON.parse(bundle) });
    expect(publish.predicateType).toBe('https://github.com/npm/attestation/tree/main/specs/publish/v0.1');

    // The registry's publish attestation: DSSE over the statement, with the key that signed the version.
    const envelope = publish.bundle.dsseEnvelope;
    const payload = Buffer.from(envelope.payload, 'base64');
    const statement = JSON.parse(payload.toString());
    const sha512 = Buffer.from(version.dist.integrity.slice('sha512-'.length), 'base64').toString('hex');
    expect(statement.subject).toEqual([{ name: `pkg:npm/${name}@1.0.0`, digest: { sha512 } }]);
    const keys = (await request(`${registry.url}/-/npm/v1/keys`)).body.keys as { keyid: string; key: string }[];
    const key = keys.find((k) => k.keyid === envelope.signatures[0].keyid)!;
    expect(key).toBeDefined();
    const pae = Buffer.concat([
      Buffer.from(`DSSEv1 ${envelope.payloadType.length} ${envelope.payloadType} ${payload.length} `),
      payload,
    ]);
    const publicKey = createPublicKey({ key: Buffer.from(key.key, 'base64'), format: 'der', type: 'spki' });
    expect(verify('sha256', pae, publicKey, Buffer.from(envelope.signatures[0].sig, 'base64'))).toBe(true);
  });

  it.each([
    ['another package', {}, { name: 'com.acme.other', version: '1.1.0' }, 'its subject is pkg:npm/com.acme.other@1.1.0'],
    ['another version', {}, { name, version: '9.9.9' }, `its subject is pkg:npm/${name}@9.9.9, not pkg:npm/${name}@1.1.0`],
    ['another digest', { sha512: 'ab'.repeat(64) }, { name, version: '1.1.0' }, "its subject's sha512"],
    ['a statement changed after signing', { tamper: true }, { name, version: '1.1.0' }, 'its signature does not verify'],
  ])('is refused for %s, with the reason, changing nothing', async (_label, options, bundleFor, reason) => {
    const before = await storeSnapshot(registry, [name]);
    const { body } = await withProvenance(name, '1.1.0', options, bundleFor);
    const res = await request(`${registry.url}/${name}`, { method: 'PUT', token, body });
    expect(res.status).toBe(422);
    expect(res.body.error).toContain('the provenance bundle was refused');
    expect(res.body.error).toContain(reason);
    expect(await storeSnapshot(registry, [name])).toEqual(before);
  });

  it('is refused when the attachment is not a Sigstore bundle', async () => {
    const { body } = publishBody(name, '1.2.0');
    (body._attachments as Record<string, unknown>)[`${name}-1.2.0.sigstore`] = { data: '{"mediaType":"text/plain"}', length: 26 };
    const res = await request(`${registry.url}/${name}`, { method: 'PUT', token, body });
    expect(res.status).toBe(422);
    expect(res.body.error).toContain('it is not a Sigstore bundle');
  });

  it('answers the visibility npm asks for before such a publish, and 404 for attestations that do not exist', async () => {
    expect((await request(`${registry.url}/-/package/${name}/visibility`)).body).toEqual({ public: true });
    expect((await request(`${registry.url}/-/package/com.acme.none/visibility`)).status).toBe(404);
    expect((await request(`${registry.url}/-/npm/v1/attestations/com.acme.none@1.0.0`)).status).toBe(404);
    expect((await request(`${registry.url}/-/npm/v1/attestations/${name}@1.1.0`)).status).toBe(404);
    expect((await request(`${registry.url}/-/npm/v1/attestations/${name}`)).status).toBe(404);
  });
});
