import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  loginUser,
  publishBody,
  publishVersion,
  request,
  startRegistry,
  unityAttestation,
  type TestRegistry,
} from '@pkg/testkit';
import { WebClient } from './web-client.js';

/** The package page shows the registry's signature and the advisories affecting the version shown. */
const NAME = 'com.acme.marked';
let registry: TestRegistry;
let web: WebClient;

beforeAll(async () => {
  registry = await startRegistry();
  web = new WebClient(registry.url);
  const token = await loginUser(registry.url, 'owner');
  for (const version of ['1.0.0', '1.1.0']) expect((await publishVersion(registry.url, token, NAME, version)).status).toBe(201);
  const advisory = await request(`${registry.url}/-/pkg/v1/advisories/${NAME}`, {
    method: 'POST',
    token,
    body: {
      severity: 'critical',
      vulnerable_versions: '<1.1.0',
      title: 'Level files <b>run</b> code',
      url: 'https://example.com/adv',
    },
  });
  expect(advisory.status).toBe(201);
  const signed = publishBody('com.acme.unity-signed', '1.0.0', {
    manifest: { unity: '6000.3' },
    files: [{ path: 'package/.attestation.p7m', content: await unityAttestation('Studio Ltd') }],
  });
  expect((await request(`${registry.url}/com.acme.unity-signed`, { method: 'PUT', token, body: signed.body })).status).toBe(201);
  const unsigned = publishBody('com.acme.unity-unsigned', '1.0.0', { manifest: { unity: '6000.3' } });
  expect((await request(`${registry.url}/com.acme.unity-unsigned`, { method: 'PUT', token, body: unsigned.body })).status).toBe(
    201,
  );
});
afterAll(async () => {
  await registry.close();
});

describe('supply-chain marks on the package page', () => {
  it('shows the advisory on the affected version only, escaped, and the signature on both', async () => {
    const affected = await web.get(`/-/web/package/${NAME}?version=1.0.0`);
    expect(affected.status).toBe(200);
    expect(affected.html).toContain('Signed by this registry');
    expect(affected.html).toContain('critical advisory');
    expect(affected.html).toContain('Level files &lt;b&gt;run&lt;/b&gt; code');
    expect(affected.html).toContain('href="https://example.com/adv"');

    const fixed = await web.get(`/-/web/package/${NAME}`);
    expect(fixed.status).toBe(200);
    expect(fixed.html).toContain('Signed by this registry');
    expect(fixed.html).not.toContain('critical advisory');
    // Not a Unity package: no Unity mark.
    expect(fixed.html).not.toContain('Unity package');
  });

  it('marks Unity packages as signed (by whom) or unsigned', async () => {
    const signed = await web.get('/-/web/package/com.acme.unity-signed');
    expect(signed.html).toContain('Signed for Unity by <bdi>Studio Ltd</bdi>');
    const unsigned = await web.get('/-/web/package/com.acme.unity-unsigned');
    expect(unsigned.html).toContain('Unsigned Unity package');
  });
});
