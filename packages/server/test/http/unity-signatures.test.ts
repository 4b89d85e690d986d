import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VersionRecord } from '@pkg/protocol';
import { loginUser, publishBody, rawRequest, request, startRegistry, unityAttestation, type TestRegistry } from '@pkg/testkit';

/** Unity-signed packages: recorded as signed with their signer, tarballs served byte for byte. */
let registry: TestRegistry;
let token: string;

beforeAll(async () => {
  registry = await startRegistry();
  token = await loginUser(registry.url, 'studio');
});
afterAll(async () => {
  await registry.close();
});

describe('Unity package signatures', () => {
  it('records a version holding package/.attestation.p7m as signed, naming the signer; the tarball is kept as it is', async () => {
    const name = 'com.acme.signed-tool';
    const p7m = await unityAttestation('Acme Games Ltd');
    const { body, tarball } = publishBody(name, '1.0.0', {
      manifest: { unity: '6000.3', displayName: 'Signed tool' },
      files: [{ path: 'package/.attestation.p7m', content: p7m }],
    });
    expect((await request(`${registry.url}/${name}`, { method: 'PUT', token, body })).status).toBe(201);
    const record = (await request<VersionRecord>(`${registry.url}/${name}/1.0.0`)).body;
    expect(record.dist.unitySignature).toEqual({ signer: 'Acme Games Ltd' });
    const abbreviated = (await request(`${registry.url}/${name}`, { headers: { accept: 'application/vnd.npm.install-v1+json' } }))
      .body.versions['1.0.0'];
    expect(abbreviated.dist.unitySignature).toEqual({ signer: 'Acme Games Ltd' });
    expect((await rawRequest(`${registry.url}/${name}/-/${name}-1.0.0.tgz`)).body.equals(tarball)).toBe(true);
  });

  it('records an unreadable signature as signed with no signer, and a package without one as unsigned', async () => {
    const odd = 'com.acme.odd-signature';
    const { body } = publishBody(odd, '1.0.0', {
      manifest: { unity: '6000.3' },
      files: [{ path: 'package/.attestation.p7m', content: 'not DER' }],
    });
    expect((await request(`${registry.url}/${odd}`, { method: 'PUT', token, body })).status).toBe(201);
    expect((await request<VersionRecord>(`${registry.url}/${odd}/1.0.0`)).body.dist.unitySignature).toEqual({ signer: null });

    const plain = 'com.acme.unsigned-tool';
    const unsigned = publishBody(plain, '1.0.0', { manifest: { unity: '6000.3' } });
    expect((await request(`${registry.url}/${plain}`, { method: 'PUT', token, body: unsigned.body })).status).toBe(201);
    expect((await request<VersionRecord>(`${registry.url}/${plain}/1.0.0`)).body.dist.unitySignature).toBeUndefined();
  });

  it("shows in the search objects' engine facts: signed with the signer, signed unreadably, unsigned", async () => {
    const engines = async (name: string) => {
      const res = await request(`${registry.url}/-/v1/search?text=${name}`);
      const object = res.body.objects.find((o: { package: { name: string } }) => o.package.name === name);
      return object.package.engines;
    };
    expect(await engines('com.acme.signed-tool')).toEqual([
      { engine: 'unity', min: '6000.3', signature: { signer: 'Acme Games Ltd' } },
    ]);
    expect(await engines('com.acme.odd-signature')).toEqual([{ engine: 'unity', min: '6000.3', signature: { signer: null } }]);
    expect(await engines('com.acme.unsigned-tool')).toEqual([{ engine: 'unity', min: '6000.3', signature: null }]);
  });
});
