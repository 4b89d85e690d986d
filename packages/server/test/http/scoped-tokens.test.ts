import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  loginUser,
  publishFixtures,
  publishVersion,
  request,
  startRegistry,
  storeSnapshot,
  type TestRegistry,
} from '@pkg/testkit';

/**
 * npm's token API (`/-/npm/v1/tokens`) and the limits of the tokens it makes, enforced on every
 * route: the reads answered from memory (documents, tarballs, search) as well as the rest.
 */
let registry: TestRegistry;
let ada: string;
const PASSWORD = 'ada: the password';
const TOKENS = () => `${registry.url}/-/npm/v1/tokens`;

beforeAll(async () => {
  registry = await startRegistry();
  ada = await loginUser(registry.url, 'ada', PASSWORD);
  await publishFixtures(registry.url, ada, {
    'com.studio.tool': [{ version: '1.0.0' }],
    'com.studio.tool.extra': [{ version: '1.0.0' }],
    'com.other.lib': [{ version: '1.0.0' }],
  });
});
afterAll(async () => {
  await registry?.close();
});

async function createToken(body: Record<string, unknown>, token = ada) {
  return request(TOKENS(), { method: 'POST', token, body: { password: PASSWORD, ...body } });
}

async function scopedToken(body: Record<string, unknown>): Promise<string> {
  const res = await createToken(body);
  expect(res.status, res.text).toBe(201);
  return res.body.token as string;
}

describe('POST /-/npm/v1/tokens', () => {
  it('creates a token shown once, with npm 10 fields (readonly, cidr_whitelist) and ours', async () => {
    const res = await createToken({ readonly: true, cidr_whitelist: ['127.0.0.0/8'], packages: ['com.studio.*'], name: 'ci' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      key: expect.stringMatching(/^[0-9a-f]{16}$/),
      name: 'ci',
      readonly: true,
      cidr_whitelist: ['127.0.0.0/8'],
      packages: ['com.studio.*'],
      expires: null,
    });
    const who = await request(`${registry.url}/-/whoami`, { token: res.body.token });
    expect(who.body.username).toBe('ada');
    const listed = await request(TOKENS(), { token: ada });
    expect(JSON.stringify(listed.body)).not.toContain(res.body.token);
  });

  it("takes npm 11's fields: packages_and_scopes_permission, expires in days, bypass_2fa", async () => {
    const res = await createToken({ name: 'n11', packages_and_scopes_permission: 'read-only', expires: 7, bypass_2fa: true });
    expect(res.status).toBe(201);
    expect(res.body.readonly).toBe(true);
    expect(res.body.automation).toBe(true);
    const days = (Date.parse(res.body.expires) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(6.9);
    expect(days).toBeLessThanOrEqual(7);
  });

  it('refuses a wrong password, bad limits, npm scopes, and a limited token, creating nothing', async () => {
    const before = (await request(TOKENS(), { token: ada })).body.total;
    const wrong = await request(TOKENS(), { method: 'POST', token: ada, body: { password: 'nope' } });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('www-authenticate')).toMatch(/^Token reason="Invalid credentials/);
    for (const [body, status, error] of [
      [{ cidr_whitelist: ['10.0.0.0/33'] }, 422, "'10.0.0.0/33' is not a CIDR range such as 192.168.0.0/16"],
      [{ packages: ['Com.Bad'] }, 422, "'Com.Bad' is neither a package name nor a '<prefix>.*' namespace"],
      [{ packages: [] }, 422, "'packages' names no package: leave it out for every package"],
      [
        { scopes: ['@acme'] },
        422,
        'This registry has no npm scopes: limit a token to packages or namespaces instead (--packages com.studio.*)',
      ],
      [{ expires: 0 }, 422, "'expires' must be a whole number of days from 1 to 3650"],
      [{ readonly: 'yes' }, 400, "'readonly' must be true or false"],
      [{ readonly: true, publish_only: true }, 422, 'A token cannot be both read-only and publish-only'],
    ] as const) {
      const res = await createToken(body);
      expect({ status: res.status, error: res.body.error }, JSON.stringify(body)).toEqual({ status, error });
    }
    const missing = await request(TOKENS(), { method: 'POST', token: ada, body: {} });
    expect(missing.status).toBe(400);
    const limited = await scopedToken({ readonly: true });
    const refused = await createToken({}, limited);
    expect(refused.status).toBe(403);
    expect(refused.body.error).toBe('This token is limited: managing tokens needs the token of a login (npm login, pkg login)');
    expect((await request(TOKENS(), { method: 'POST', body: { password: PASSWORD } })).status).toBe(401);
    expect((await request(TOKENS(), { token: ada })).body.total).toBe(before + 1);
  });
});

describe('GET /-/npm/v1/tokens and DELETE /-/npm/v1/tokens/token/<key>', () => {
  it('lists in pages with urls.next, newest first, and revokes by key', async () => {
    const bob = await loginUser(registry.url, 'bob', 'bob-password');
    const made: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await request(TOKENS(), { method: 'POST', token: bob, body: { password: 'bob-password', name: `t${i}` } });
      made.push(res.body.key);
    }
    const first = await request(`${TOKENS()}?perPage=2`, { token: bob });
    expect(first.status).toBe(200);
    expect(first.body.total).toBe(4);
    expect(first.body.objects).toHaveLength(2);
    expect(first.body.objects[0]).toMatchObject({ key: made[2], name: 't2', readonly: false, cidr_whitelist: null });
    expect(first.body.objects[0].token).toHaveLength(6);
    const next = await request(first.body.urls.next, { token: bob });
    expect(next.body.objects).toHaveLength(2);
    expect(next.body.urls.next).toBeNull();
    expect((await request(`${TOKENS()}?page=x`, { token: bob })).status).toBe(400);

    expect((await request(`${TOKENS()}/token/${made[0]}`, { method: 'DELETE', token: ada })).status).toBe(404);
    const gone = await request(`${TOKENS()}/token/${made[0]}`, { method: 'DELETE', token: bob });
    expect(gone.status).toBe(204);
    expect((await request(`${TOKENS()}/token/${made[0]}`, { method: 'DELETE', token: bob })).status).toBe(404);
    expect((await request(TOKENS(), { token: bob })).body.total).toBe(3);
  });

  it('records when and from where a token was last used, in batches', async () => {
    const token = await scopedToken({ name: 'watched' });
    expect((await request(`${registry.url}/com.studio.tool`, { token })).status).toBe(200);
    await registry.services.tokenUses.flush();
    const listed = await request(TOKENS(), { token: ada });
    const row = listed.body.objects.find((t: { name: string }) => t.name === 'watched');
    expect(row.last_address).toMatch(/127\.0\.0\.1|::1/);
    expect(Date.now() - Date.parse(row.last_used)).toBeLessThan(60_000);
  });
});

describe('limits on every route', () => {
  it('a token limited to packages reads and writes only those, on every kind of route', async () => {
    const token = await scopedToken({ packages: ['com.studio.*'] });
    const url = registry.url;
    for (const path of [
      '/com.studio.tool',
      '/com.studio.tool.extra',
      '/com.studio.tool/-/com.studio.tool-1.0.0.tgz',
      '/com.studio.tool/1.0.0',
      '/com.studio.tool?write=true',
      '/-/package/com.studio.tool/dist-tags',
    ]) {
      expect((await request(`${url}${path}`, { token })).status, path).toBe(200);
    }
    for (const path of [
      '/com.other.lib',
      '/com.other.lib/-/com.other.lib-1.0.0.tgz',
      '/com.other.lib/1.0.0',
      '/com.other.lib?write=true',
      '/-/package/com.other.lib/dist-tags',
      '/downloads/point/last-week/com.other.lib',
    ]) {
      const res = await request(`${url}${path}`, { token });
      expect(res.status, path).toBe(403);
      expect(res.body.error).toBe("This token may not be used for 'com.other.lib': it is limited to com.studio.*");
    }
    const head = await fetch(`${url}/com.other.lib/-/com.other.lib-1.0.0.tgz`, {
      method: 'HEAD',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(head.status).toBe(403);

    const search = await request(`${url}/-/v1/search?text=com&size=1`, { token });
    expect(search.body.total).toBe(2);
    expect(search.body.objects.map((o: { package: { name: string } }) => o.package.name)).toHaveLength(1);
    const all = await request(`${url}/-/all`, { token });
    expect(
      Object.keys(all.body)
        .filter((k) => k !== '_updated')
        .sort(),
    ).toEqual(['com.studio.tool', 'com.studio.tool.extra']);
    const anonymousAll = await request(`${url}/-/all`);
    expect(Object.keys(anonymousAll.body)).toContain('com.other.lib');

    const before = await storeSnapshot(registry, ['com.other.lib', 'com.other.new']);
    expect((await publishVersion(url, token, 'com.other.lib', '2.0.0')).status).toBe(403);
    expect((await publishVersion(url, token, 'com.other.new', '1.0.0')).status).toBe(403);
    const tag = await request(`${url}/-/package/com.other.lib/dist-tags/beta`, { method: 'PUT', token, body: '1.0.0' });
    expect(tag.status).toBe(403);
    expect(await storeSnapshot(registry, ['com.other.lib', 'com.other.new'])).toEqual(before);
    expect((await publishVersion(url, token, 'com.studio.tool', '1.1.0')).status).toBe(201);
  });

  it('a token limited to other addresses is refused, with the address and the ranges named', async () => {
    const outside = await scopedToken({ cidr_whitelist: ['10.0.0.0/8'] });
    const res = await request(`${registry.url}/com.studio.tool`, { token: outside });
    expect(res.status).toBe(403);
    expect(res.body.error).toMatch(
      /^This token may not be used from (127\.0\.0\.1|::1|::ffff:127\.0\.0\.1): it is limited to 10\.0\.0\.0\/8$/,
    );
    expect((await request(`${registry.url}/-/whoami`, { token: outside })).status).toBe(403);
    const inside = await scopedToken({ cidr_whitelist: ['127.0.0.0/8', '::1/128'] });
    expect((await request(`${registry.url}/com.studio.tool`, { token: inside })).status).toBe(200);
  });

  it('a publish-only token publishes, and changes nothing else', async () => {
    const token = await scopedToken({ publish_only: true });
    expect((await publishVersion(registry.url, token, 'com.studio.tool', '1.2.0')).status).toBe(201);
    const before = await storeSnapshot(registry, ['com.studio.tool']);
    const tag = await request(`${registry.url}/-/package/com.studio.tool/dist-tags/beta`, {
      method: 'PUT',
      token,
      body: '1.0.0',
    });
    expect(tag.status).toBe(403);
    expect(tag.body.error).toMatch(/^This token may only publish new versions/);
    const doc = (await request(`${registry.url}/com.studio.tool?write=true`, { token })).body;
    doc.versions['1.0.0'].deprecated = 'old';
    const deprecate = await request(`${registry.url}/com.studio.tool`, { method: 'PUT', token, body: doc });
    expect(deprecate.status).toBe(403);
    const unpublish = await request(`${registry.url}/com.studio.tool/-rev/${doc._rev}`, { method: 'DELETE', token });
    expect(unpublish.status).toBe(403);
    expect(await storeSnapshot(registry, ['com.studio.tool'])).toEqual(before);
  });

  it('an expired scoped token gets the 401 that says so', async () => {
    const res = await createToken({ expires: 1 });
    const record = (await registry.storage.registry.tokens.listOfUser('', 'ada')).find((t) => t.hash.startsWith(res.body.key))!;
    await registry.storage.registry.tokens.delete('', record.hash);
    await registry.storage.registry.tokens.create('', { ...record, expiresAt: '2020-01-01T00:00:00.000Z' });
    const who = await request(`${registry.url}/-/whoami`, { token: res.body.token });
    expect(who.status).toBe(401);
    expect(who.body.error).toBe('This token expired at 2020-01-01T00:00:00.000Z: log in again or create a new token');
  });
});
