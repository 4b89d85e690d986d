import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loginUser, publishVersion, request, startRegistry, type TestRegistry } from '@pkg/testkit';
import type { AuditEntry, AuditQuery } from '../../src/storage/ports.js';

const NAME = 'com.acme.audited';
let registry: TestRegistry;
let alice: string;
let bob: string;

beforeAll(async () => {
  registry = await startRegistry();
  alice = await loginUser(registry.url, 'alice');
  bob = await loginUser(registry.url, 'bob');
  expect((await publishVersion(registry.url, alice, NAME, '1.0.0')).status).toBe(201);
  expect((await publishVersion(registry.url, alice, NAME, '1.1.0')).status).toBe(201);
});
afterAll(async () => {
  await registry.close();
});

/** The log as the store holds it (the HTTP API is for administrators, whom main does not have yet). */
const log = (query: Partial<AuditQuery> = {}) => registry.storage.audit.query('', { limit: 100, ...query });
/** Entries appended by `act`, oldest first. */
async function entriesOf(act: () => Promise<unknown>): Promise<AuditEntry[]> {
  const before = (await log({ limit: 1 }))[0]?.id;
  await act();
  return (await log(before === undefined ? {} : {}))
    .filter((e) => before === undefined || Number(e.id) > Number(before))
    .reverse();
}
const writeDocument = async (name = NAME) => (await request(`${registry.url}/${name}?write=true`)).body;

describe('the audit log records each change once, with who, from where, when, on what and the outcome', () => {
  it('publish: the user, the token id, the address and the version', async () => {
    const [entry, ...rest] = await entriesOf(() => publishVersion(registry.url, alice, NAME, '1.2.0'));
    expect(rest).toEqual([]);
    expect(entry).toEqual({
      id: expect.any(String),
      at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      action: 'package.publish',
      outcome: 'success',
      user: 'alice',
      tokenId: expect.stringMatching(/^[0-9a-f]{16}$/),
      address: '127.0.0.1',
      via: 'http',
      package: NAME,
      target: `${NAME}@1.2.0`,
      reason: null,
      details: { version: '1.2.0' },
    });
    const keys = (await request(`${registry.url}/-/npm/v1/tokens`, { token: alice })).body.objects.map(
      (t: { key: string }) => t.key,
    );
    expect(keys).toContain(entry!.tokenId);
  });

  it('deprecate and undeprecate (npm deprecate: PUT /<name>)', async () => {
    const doc = await writeDocument();
    doc.versions['1.0.0'].deprecated = 'Use 1.1';
    const deprecated = await entriesOf(() => request(`${registry.url}/${NAME}`, { method: 'PUT', token: alice, body: doc }));
    expect(deprecated.map((e) => [e.action, e.target])).toEqual([['package.deprecate', `${NAME}@1.0.0`]]);
    doc.versions['1.0.0'].deprecated = '';
    const cleared = await entriesOf(() => request(`${registry.url}/${NAME}`, { method: 'PUT', token: alice, body: doc }));
    expect(cleared.map((e) => e.action)).toEqual(['package.undeprecate']);
  });

  it('dist-tags set and removed', async () => {
    const put = () =>
      request(`${registry.url}/-/package/${NAME}/dist-tags/beta`, {
        method: 'PUT',
        token: alice,
        rawBody: '"1.0.0"',
        headers: { 'content-type': 'application/json' },
      });
    const set = await entriesOf(put);
    expect(set.map((e) => [e.action, e.details])).toEqual([['dist-tag.set', { tag: 'beta', version: '1.0.0' }]]);
    const removed = await entriesOf(() =>
      request(`${registry.url}/-/package/${NAME}/dist-tags/beta`, { method: 'DELETE', token: alice }),
    );
    expect(removed.map((e) => e.action)).toEqual(['dist-tag.remove']);
  });

  it('owners added and removed (npm owner: PUT /<name>/-rev/<rev>)', async () => {
    const doc = await writeDocument();
    const added = await entriesOf(() =>
      request(`${registry.url}/${NAME}/-rev/${doc._rev}`, {
        method: 'PUT',
        token: alice,
        body: { _id: NAME, _rev: doc._rev, maintainers: [{ name: 'alice' }, { name: 'bob' }] },
      }),
    );
    expect(added.map((e) => [e.action, e.details.owner, e.user])).toEqual([['owner.add', 'bob', 'alice']]);
    const again = await writeDocument();
    const removed = await entriesOf(() =>
      request(`${registry.url}/${NAME}/-rev/${again._rev}`, {
        method: 'PUT',
        token: alice,
        body: { _id: NAME, _rev: again._rev, maintainers: [{ name: 'alice' }] },
      }),
    );
    expect(removed.map((e) => [e.action, e.details.owner])).toEqual([['owner.remove', 'bob']]);
  });

  it('unpublishing a version is one entry, though npm makes two requests for it', async () => {
    const doc = await writeDocument();
    delete doc.versions['1.2.0'];
    const entries = await entriesOf(async () => {
      const put = await request(`${registry.url}/${NAME}/-rev/${doc._rev}`, { method: 'PUT', token: alice, body: doc });
      expect(put.status).toBe(200);
      const file = await request(`${registry.url}/${NAME}/-/${NAME}-1.2.0.tgz/-rev/${put.body.rev}`, {
        method: 'DELETE',
        token: alice,
      });
      expect(file.status).toBe(200);
    });
    expect(entries.map((e) => [e.action, e.target])).toEqual([['package.unpublish', `${NAME}@1.2.0`]]);
  });

  it('tokens: a login makes one, a sign-up makes a user, create and revoke by key', async () => {
    const signup = await entriesOf(() => loginUser(registry.url, 'carol'));
    expect(signup.map((e) => [e.action, e.user, e.outcome])).toEqual([
      ['user.create', 'carol', 'success'],
      ['token.create', 'carol', 'success'],
    ]);
    let key = '';
    const created = await entriesOf(async () => {
      const res = await request(`${registry.url}/-/npm/v1/tokens`, {
        method: 'POST',
        token: alice,
        body: { password: 'secret-password', readonly: true },
      });
      expect(res.status).toBe(201);
      key = res.body.key;
    });
    expect(created.map((e) => [e.action, e.target, e.details.readonly])).toEqual([['token.create', `token ${key}`, true]]);
    const revoked = await entriesOf(() =>
      request(`${registry.url}/-/npm/v1/tokens/token/${key}`, { method: 'DELETE', token: alice }),
    );
    expect(revoked.map((e) => [e.action, e.target])).toEqual([['token.revoke', `token ${key}`]]);
  });

  it('advisories published and withdrawn', async () => {
    const body = {
      severity: 'high',
      vulnerable_versions: '<1.1.0',
      patched_versions: '>=1.1.0',
      title: 'A flaw',
      description: 'Details.',
    };
    let id = '';
    const published = await entriesOf(async () => {
      const res = await request(`${registry.url}/-/pkg/v1/advisories/${NAME}`, { method: 'POST', token: alice, body });
      expect(res.status).toBe(201);
      id = res.body.id;
    });
    expect(published.map((e) => [e.action, e.details.id])).toEqual([['advisory.publish', id]]);
    const withdrawn = await entriesOf(() =>
      request(`${registry.url}/-/pkg/v1/advisories/${NAME}/${id}`, { method: 'DELETE', token: alice }),
    );
    expect(withdrawn.map((e) => e.action)).toEqual(['advisory.withdraw']);
  });

  it('teams: created, members and namespaces changed, and a refused claim', async () => {
    const api = (method: string, path: string, token: string, body?: unknown) =>
      request(`${registry.url}/-/pkg/v1/teams${path}`, { method, token, ...(body ? { body } : {}) });
    const made = await entriesOf(async () => {
      expect((await api('POST', '', alice, { name: 'audited' })).status).toBe(201);
      expect((await api('PUT', '/audited/members/bob', alice)).status).toBe(200);
      expect((await api('PUT', '/audited/namespaces/com.audited.*', alice)).status).toBe(200);
      expect((await api('DELETE', '/audited/namespaces/com.audited.*', alice)).status).toBe(200);
      expect((await api('DELETE', '/audited/members/bob', alice)).status).toBe(200);
    });
    expect(made.map((e) => [e.action, e.target, e.user, e.details])).toEqual([
      ['team.create', 'team audited', 'alice', {}],
      ['team.member-add', 'team audited', 'alice', { member: 'bob' }],
      ['namespace.claim', 'namespace com.audited.*', 'alice', { team: 'audited' }],
      ['namespace.release', 'namespace com.audited.*', 'alice', { team: 'audited' }],
      ['team.member-remove', 'team audited', 'alice', { member: 'bob' }],
    ]);
    const refused = await entriesOf(async () => {
      expect((await api('DELETE', '/audited', bob)).status).toBe(403);
    });
    expect(refused.map((e) => [e.action, e.outcome, e.user])).toEqual([['team.delete', 'refused', 'bob']]);
    expect(refused[0]!.reason).toMatch(/member/);
  });

  it('refused attempts: by whom, why, and nothing else recorded', async () => {
    const tag = await entriesOf(() =>
      request(`${registry.url}/-/package/${NAME}/dist-tags/latest`, {
        method: 'PUT',
        token: bob,
        rawBody: '"1.0.0"',
        headers: { 'content-type': 'application/json' },
      }),
    );
    expect(tag).toEqual([
      expect.objectContaining({
        action: 'dist-tag.set',
        outcome: 'refused',
        user: 'bob',
        package: NAME,
        address: '127.0.0.1',
        reason: expect.stringMatching(/maintainer|owner|not allowed/i),
        details: { status: 403 },
      }),
    ]);
    const anonymous = await entriesOf(() => publishVersion(registry.url, '', NAME, '9.0.0'));
    expect(anonymous).toEqual([
      expect.objectContaining({
        action: 'package.publish',
        outcome: 'refused',
        user: null,
        tokenId: null,
        details: { status: 401 },
      }),
    ]);
    const login = await entriesOf(() =>
      request(`${registry.url}/-/user/org.couchdb.user:alice`, {
        method: 'PUT',
        body: { name: 'alice', password: 'wrong-password' },
      }),
    );
    expect(login).toEqual([
      expect.objectContaining({ action: 'user.login', outcome: 'refused', user: 'alice', details: { status: 401 } }),
    ]);
    expect((await request(`${registry.url}/${NAME}`)).body['dist-tags'].latest).toBe('1.1.0');
  });

  it('reads record nothing', async () => {
    const entries = await entriesOf(async () => {
      await request(`${registry.url}/${NAME}`);
      await request(`${registry.url}/-/package/${NAME}/dist-tags`);
      await request(`${registry.url}/-/whoami`, { token: alice });
    });
    expect(entries).toEqual([]);
  });
});

describe('the audit and webhook HTTP API is for administrators of the registry', () => {
  it('anonymous callers get 401, users who do not administer the registry 403 with the reason', async () => {
    expect((await request(`${registry.url}/-/pkg/v1/audit`)).status).toBe(401);
    const forbidden = await request(`${registry.url}/-/pkg/v1/audit?user=alice`, { token: alice });
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.details).toMatch(/administrator of this registry may read the audit log/);
    const hooks = await request(`${registry.url}/-/pkg/v1/webhooks`, {
      method: 'POST',
      token: alice,
      body: { url: 'http://127.0.0.1:9/', events: ['*'] },
    });
    expect(hooks.status).toBe(403);
    expect(await registry.storage.webhooks.listWebhooks('')).toEqual([]);
    // The refused attempt is itself in the log.
    expect((await log({ action: 'webhook', limit: 1 }))[0]).toMatchObject({
      action: 'webhook.add',
      outcome: 'refused',
      user: 'alice',
    });
  });
});
