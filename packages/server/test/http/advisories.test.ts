import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loginUser, publishVersion, request, startRegistry, type TestRegistry } from '@pkg/testkit';

/** Publishing, listing and withdrawing advisories over the HTTP API; who may; what is refused. */
const NAME = 'com.acme.advised';
let registry: TestRegistry;
let owner: string;
let stranger: string;

const advisory = {
  severity: 'critical',
  vulnerable_versions: '>=1.0.0 <1.0.2',
  patched_versions: '>=1.0.2',
  title: 'Remote code execution in the level loader',
  description: 'A crafted level file runs code.',
};
const post = (body: unknown, token = owner, name = NAME) =>
  request(`${registry.url}/-/pkg/v1/advisories/${name}`, { method: 'POST', token, body });
const list = async (query = '') => (await request(`${registry.url}/-/pkg/v1/advisories/${NAME}${query}`)).body.advisories;

beforeAll(async () => {
  registry = await startRegistry();
  owner = await loginUser(registry.url, 'owner');
  stranger = await loginUser(registry.url, 'stranger');
  for (const version of ['1.0.0', '1.0.1', '1.0.2'])
    expect((await publishVersion(registry.url, owner, NAME, version)).status).toBe(201);
});
afterAll(async () => {
  await registry.close();
});

describe('/-/pkg/v1/advisories/<package>', () => {
  it('publishes an advisory (id made by the registry), lists it, updates it by id, withdraws it', async () => {
    const created = await post(advisory);
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^PKG-[0-9A-F]{12}$/),
      name: NAME,
      ...advisory,
      url: `${registry.url}/-/web/package/${NAME}/advisories#advisory-${created.body.id}`,
      published_by: 'owner',
      published: expect.any(String),
      updated: expect.any(String),
      withdrawn: null,
    });
    expect(await list()).toEqual([created.body]);

    const updated = await post({ ...advisory, id: created.body.id, severity: 'high' });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ id: created.body.id, severity: 'high', published: created.body.published });

    const bulk = await request(`${registry.url}/-/npm/v1/security/advisories/bulk`, {
      method: 'POST',
      body: { [NAME]: ['1.0.1'], 'com.acme.unknown': ['1.0.0'] },
    });
    expect(bulk.body).toEqual({
      [NAME]: [
        {
          id: created.body.id,
          url: created.body.url,
          title: advisory.title,
          severity: 'high',
          vulnerable_versions: advisory.vulnerable_versions,
          patched_versions: advisory.patched_versions,
          cwe: [],
          cvss: { score: 0, vectorString: null },
        },
      ],
    });
    // A fixed version is not affected.
    const fixed = await request(`${registry.url}/-/npm/v1/security/advisories/bulk`, {
      method: 'POST',
      body: { [NAME]: ['1.0.2'] },
    });
    expect(fixed.body).toEqual({});

    const withdrawn = await request(`${registry.url}/-/pkg/v1/advisories/${NAME}/${created.body.id}`, {
      method: 'DELETE',
      token: owner,
    });
    expect(withdrawn.status).toBe(200);
    expect(withdrawn.body.withdrawn).toEqual(expect.any(String));
    expect(await list()).toEqual([]);
    expect(await list('?withdrawn=true')).toEqual([withdrawn.body]);
  });

  it('keeps a given id, such as a CVE', async () => {
    const res = await post({ ...advisory, id: 'CVE-2026-4242', url: 'https://example.com/cve' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ id: 'CVE-2026-4242', url: 'https://example.com/cve' });
  });

  it.each([
    ['no token', () => request(`${registry.url}/-/pkg/v1/advisories/${NAME}`, { method: 'POST', body: advisory }), 401],
    ['a stranger', () => post(advisory, stranger), 403],
    ['an unknown package', () => post(advisory, owner, 'com.acme.nothing'), 404],
    ['an invalid package name', () => post(advisory, owner, 'Not-A-Name'), 422],
    ['a body that is not an object', () => post([advisory]), 400],
    ['an unknown severity', () => post({ ...advisory, severity: 'urgent' }), 422],
    ['a range that is not semver', () => post({ ...advisory, vulnerable_versions: 'latest' }), 422],
    ['patched versions that are not semver', () => post({ ...advisory, patched_versions: 'soon' }), 422],
    ['an empty title', () => post({ ...advisory, title: ' ' }), 422],
    ['a javascript: link', () => post({ ...advisory, url: 'javascript:alert(1)' }), 422],
    ['a hostile id', () => post({ ...advisory, id: '"><script>' }), 422],
    ['an unknown field', () => post({ ...advisory, score: 9 }), 422],
  ])('refuses %s and changes nothing', async (_label, send, status) => {
    const before = await list('?withdrawn=true');
    const res = await send();
    expect(res.status).toBe(status);
    expect(res.body).toEqual({ error: expect.any(String), code: expect.any(String), details: expect.any(String) });
    expect(await list('?withdrawn=true')).toEqual(before);
  });

  it('tells a stranger and a read-only token why they are refused', async () => {
    const refused = await post(advisory, stranger);
    expect(refused.body.details).toBe(
      `Only the maintainers of '${NAME}' and this registry's administrators may publish or withdraw its advisories; 'stranger' is neither`,
    );
    const readOnly = await request<{ token: string }>(`${registry.url}/-/npm/v1/tokens`, {
      method: 'POST',
      token: owner,
      body: { password: 'secret-password', readonly: true },
    });
    expect(readOnly.status).toBe(201);
    const res = await post(advisory, readOnly.body.token);
    expect(res.status).toBe(403);
    expect(res.body.details).toMatch(/read-only/);
  });

  it('answers withdrawing an unknown advisory with 404, and a stranger with 403', async () => {
    expect((await request(`${registry.url}/-/pkg/v1/advisories/${NAME}/NOPE-1`, { method: 'DELETE', token: owner })).status).toBe(
      404,
    );
    expect(
      (await request(`${registry.url}/-/pkg/v1/advisories/${NAME}/CVE-2026-4242`, { method: 'DELETE', token: stranger })).status,
    ).toBe(403);
  });

  it.each([
    ['a bulk body that is not an object', '/-/npm/v1/security/advisories/bulk', [1, 2]],
    ['bulk versions that are not a list', '/-/npm/v1/security/advisories/bulk', { [NAME]: '1.0.0' }],
    ['a quick-audit body that is not an object', '/-/npm/v1/security/audits/quick', 'lock'],
  ])('refuses %s with 400', async (_label, path, body) => {
    const res = await request(`${registry.url}${path}`, { method: 'POST', body });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('BAD_REQUEST');
  });
});
