import { createPublicKey, verify } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PackageDocument, VersionRecord } from '@pkg/protocol';
import { TenantAdmin } from '@pkg/server';
import {
  loginOn,
  loginUser,
  npmRegistryKeys,
  npmSignatureChecks,
  publishBody,
  publishVersion,
  registryHost,
  request,
  startRegistry,
  type TestRegistry,
} from '@pkg/testkit';
import { RegistrySignatures } from '../../src/services/registry-signatures.js';
import { signVersionsPublishedBefore } from '../../src/services/signature-backfill.js';
import { verifyStoredVersions } from '../../src/services/version-verification.js';
import { blobKeyFor } from '../../src/storage/blob-keys.js';
import { TenantGoneError } from '../../src/storage/ports.js';

/**
 * Registry signatures as npm's registry makes them, checked with npm's own code (the pacote
 * inside npm 10 and npm 11, `verifySignatures` with the keys shaped as npm shapes them) and with
 * the bare algorithm npm uses: crypto.verify('SHA256', `<name>@<version>:<integrity>`, PEM SPKI).
 */
const DOMAIN = 'registry.test';
let registry: TestRegistry;
let token: string;
let cache: string;

beforeAll(async () => {
  registry = await startRegistry({ settings: { registryDomain: DOMAIN } });
  token = await loginUser(registry.url, 'alice');
  cache = await mkdtemp(path.join(tmpdir(), 'pkg-signatures-cache-'));
});
afterAll(async () => {
  await registry?.close();
  await rm(cache, { recursive: true, force: true });
});

interface KeysBody {
  keys: { expires: string | null; keyid: string; keytype: string; scheme: string; key: string }[];
}

/** npm's check, bare: `crypto.verify('SHA256', message, PEM of the SPKI, signature)`. */
function npmVerifies(keys: KeysBody, name: string, record: VersionRecord): boolean {
  const signatures = record.dist.signatures as { keyid: string; sig: string }[];
  expect(signatures).toHaveLength(1);
  const key = keys.keys.find((k) => k.keyid === signatures[0]!.keyid);
  if (!key) return false;
  const pem = `-----BEGIN PUBLIC KEY-----\n${key.key}\n-----END PUBLIC KEY-----`;
  return verify(
    'SHA256',
    Buffer.from(`${name}@${record.version}:${record.dist.integrity}`),
    { key: pem },
    Buffer.from(signatures[0]!.sig, 'base64'),
  );
}

describe('GET /-/npm/v1/keys and dist.signatures', () => {
  const name = 'com.acme.signed';
  let keys: KeysBody;

  beforeAll(async () => {
    expect((await publishVersion(registry.url, token, name, '1.0.0')).status).toBe(201);
    const res = await request<KeysBody>(`${registry.url}/-/npm/v1/keys`);
    expect(res.status).toBe(200);
    keys = res.body;
  });

  it("serves one ECDSA P-256 key in npm's format", () => {
    expect(keys.keys).toEqual([
      {
        expires: null,
        keyid: expect.stringMatching(/^SHA256:[A-Za-z0-9+/]{43}$/),
        keytype: 'ecdsa-sha2-nistp256',
        scheme: 'ecdsa-sha2-nistp256',
        key: expect.any(String),
      },
    ]);
    const key = createPublicKey({ key: Buffer.from(keys.keys[0]!.key, 'base64'), format: 'der', type: 'spki' });
    expect(key.asymmetricKeyDetails).toEqual({ namedCurve: 'prime256v1' });
    expect(JSON.stringify(keys)).not.toMatch(/PRIVATE/);
  });

  it('signs the version in the full, abbreviated and version documents, verifiable as npm verifies', async () => {
    const full = (await request<PackageDocument>(`${registry.url}/${name}`)).body;
    const abbreviated = (
      await request<PackageDocument>(`${registry.url}/${name}`, { headers: { accept: 'application/vnd.npm.install-v1+json' } })
    ).body;
    const version = (await request<VersionRecord>(`${registry.url}/${name}/1.0.0`)).body;
    for (const record of [full.versions['1.0.0']!, abbreviated.versions['1.0.0']!, version]) {
      expect(record.dist.signatures).toEqual([{ keyid: keys.keys[0]!.keyid, sig: expect.any(String) }]);
      expect(npmVerifies(keys, name, record)).toBe(true);
    }
    // The signature is of this version's integrity: moved to another, it no longer verifies.
    expect(npmVerifies(keys, name, { ...version, version: '1.0.1' })).toBe(false);
  });

  it('ignores dist.signatures a publisher sends: only the registry signs', async () => {
    const other = 'com.acme.forged';
    const { body } = publishBody(other, '1.0.0');
    const versions = body.versions as Record<string, { dist: Record<string, unknown> }>;
    versions['1.0.0']!.dist.signatures = [{ keyid: 'SHA256:forged', sig: 'AAAA' }];
    expect((await request(`${registry.url}/${other}`, { method: 'PUT', token, body })).status).toBe(201);
    const record = (await request<VersionRecord>(`${registry.url}/${other}/1.0.0`)).body;
    expect(record.dist.signatures).toEqual([{ keyid: keys.keys[0]!.keyid, sig: expect.any(String) }]);
    expect(npmVerifies(keys, other, record)).toBe(true);
  });

  it.each(npmSignatureChecks().map((check) => [check.label, check] as const))(
    "passes %s's own signature check (pacote, verifySignatures)",
    async (_label, check) => {
      const manifest = await check.verify(`${name}@1.0.0`, registry.url, npmRegistryKeys(keys), path.join(cache, _label));
      expect(manifest._signatures).toEqual([{ keyid: keys.keys[0]!.keyid, sig: expect.any(String) }]);
    },
  );

  it.each(npmSignatureChecks().map((check) => [check.label, check] as const))(
    '%s refuses a version whose stored integrity was changed after it was signed',
    async (label, check) => {
      const tampered = `com.acme.tampered-${label.replace(/\W/g, '')}`;
      expect((await publishVersion(registry.url, token, tampered, '1.0.0')).status).toBe(201);
      await registry.storage.packages.package('', tampered).update((current) => {
        const document = structuredClone(current!.document);
        document.versions['1.0.0']!.dist.integrity = `sha512-${Buffer.alloc(64, 7).toString('base64')}`;
        return { next: { ...current!, document }, result: null };
      });
      await registry.storage.bus.publish('', tampered);
      await expect(
        check.verify(`${tampered}@1.0.0`, registry.url, npmRegistryKeys(keys), path.join(cache, `${label}-tampered`)),
      ).rejects.toMatchObject({ code: 'EINTEGRITYSIGNATURE' });
    },
  );
});

describe('rotation', () => {
  it('signs new versions with the new key; the old key expires and still verifies what it signed', async () => {
    const host = registryHost(registry.url, `rotating.${DOMAIN}`);
    await new TenantAdmin(registry.storage).create('rotating', {});
    const tenantToken = await loginOn(host, 'rita');
    const name = 'com.rotate.pkg';
    const publish = async (version: string) => {
      const { body } = publishBody(name, version);
      expect((await host.request(`/${name}`, { method: 'PUT', token: tenantToken, body })).status).toBe(201);
    };
    await publish('1.0.0');
    const before = (await host.request<KeysBody>('/-/npm/v1/keys')).body;
    expect(before.keys).toHaveLength(1);

    const rotation = await new RegistrySignatures({ signingKeys: registry.storage.signingKeys, now: () => new Date() }).rotate(
      'rotating',
    );
    expect(rotation.expired).toBe(before.keys[0]!.keyid);
    await publish('1.1.0');

    const after = (await host.request<KeysBody>('/-/npm/v1/keys')).body;
    expect(after.keys).toEqual([
      { ...before.keys[0], expires: expect.any(String) },
      {
        expires: null,
        keyid: rotation.current,
        keytype: 'ecdsa-sha2-nistp256',
        scheme: 'ecdsa-sha2-nistp256',
        key: expect.any(String),
      },
    ]);
    const doc = (await host.request<PackageDocument>(`/${name}`)).body;
    const old = doc.versions['1.0.0']!;
    const fresh = doc.versions['1.1.0']!;
    expect((old.dist.signatures as { keyid: string }[])[0]!.keyid).toBe(before.keys[0]!.keyid);
    expect((fresh.dist.signatures as { keyid: string }[])[0]!.keyid).toBe(rotation.current);
    expect(npmVerifies(after, name, old)).toBe(true);
    expect(npmVerifies(after, name, fresh)).toBe(true);
    // npm accepts an expired key's signature only for versions published before it expired.
    expect(Date.parse(doc.time['1.0.0']!)).toBeLessThan(Date.parse(after.keys[0]!.expires!));
  });

  it('gives every registry its own key', async () => {
    await new TenantAdmin(registry.storage).create('own-key', {});
    const global = (await request<KeysBody>(`${registry.url}/-/npm/v1/keys`)).body;
    const tenant = (await registryHost(registry.url, `own-key.${DOMAIN}`).request<KeysBody>('/-/npm/v1/keys')).body;
    expect(tenant.keys).toHaveLength(1);
    expect(global.keys.map((k) => k.keyid)).not.toContain(tenant.keys[0]!.keyid);
  });
});

describe('versions published before the upgrade, and tarballs changed in storage', () => {
  it('the one-time job signs local versions that have no signature, once', async () => {
    const name = 'com.acme.before-upgrade';
    expect((await publishVersion(registry.url, token, name, '1.0.0')).status).toBe(201);
    expect((await publishVersion(registry.url, token, name, '1.1.0')).status).toBe(201);
    // As the previous release left it: no signatures.
    await registry.storage.packages.package('', name).update((current) => {
      const document = structuredClone(current!.document);
      for (const record of Object.values(document.versions)) delete record.dist.signatures;
      return { next: { ...current!, document }, result: null };
    });
    await registry.storage.bus.publish('', name);
    expect((await request<VersionRecord>(`${registry.url}/${name}/1.0.0`)).body.dist.signatures).toBeUndefined();

    const deps = { ...registry.storage, now: () => new Date() };
    expect(await signVersionsPublishedBefore(deps)).toBeGreaterThanOrEqual(2);
    const keys = (await request<KeysBody>(`${registry.url}/-/npm/v1/keys`)).body;
    const doc = (await request<PackageDocument>(`${registry.url}/${name}`)).body;
    for (const version of ['1.0.0', '1.1.0']) expect(npmVerifies(keys, name, doc.versions[version]!)).toBe(true);
    // Done once per registry: a second start signs nothing, even if something lacks a signature.
    expect(await signVersionsPublishedBefore(deps)).toBe(0);
  });

  it('verification finds a tarball changed in storage after publish, and a missing one', async () => {
    const name = 'com.acme.verified';
    expect((await publishVersion(registry.url, token, name, '1.0.0')).status).toBe(201);
    expect((await publishVersion(registry.url, token, name, '1.1.0')).status).toBe(201);
    expect(await verifyStoredVersions(registry.storage, '', [name])).toEqual({ checked: 2, problems: [] });

    const changed = publishBody(name, '1.0.0', { manifest: { description: 'swapped in storage' } }).tarball;
    await registry.storage.blobs.put(blobKeyFor('', name, '1.0.0'), changed);
    await registry.storage.blobs.delete(blobKeyFor('', name, '1.1.0'));
    expect(await verifyStoredVersions(registry.storage, '', [name])).toEqual({
      checked: 2,
      problems: [
        { name, version: '1.0.0', problem: 'the tarball in storage does not match dist.integrity (changed after publish)' },
        { name, version: '1.1.0', problem: 'the tarball is missing from storage' },
      ],
    });
  });
});

describe('a tenant deleted before its first signature', () => {
  it('is a deleted tenant to the signer (404 to a publish), never an unhandled error', async () => {
    const signatures = new RegistrySignatures({ signingKeys: registry.storage.signingKeys, now: () => new Date() });
    // No key is ever made for a tenant that does not exist (any more): a publish racing the
    // tenant's delete reaches this after the delete.
    const refused = await signatures.sign('never-created', 'com.gone.pkg', '1.0.0', 'sha512-AAAA').catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(TenantGoneError);
    expect(refused).toMatchObject({ code: 'NOT_FOUND' });
  });
});
