import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TenantAdmin } from '@pkg/server';
import {
  loginOn,
  loginUser,
  publishBody,
  publishVersion,
  registryHost,
  request,
  startRegistry,
  type TestRegistry,
} from '@pkg/testkit';
import { OPERATOR } from '../../src/services/team-service.js';

/**
 * Teams that own namespaces over the HTTP API: who may create, change and claim; a new package
 * in a team's namespace is published by its members only, with npm's 403 `error` naming the team;
 * packages that exist keep their maintainers.
 */
const DOMAIN = 'registry.test';
let registry: TestRegistry;
let alice: string;
let bob: string;
let eve: string;

const teams = (path = '', init: Parameters<typeof request>[1] = {}) => request(`${registry.url}/-/pkg/v1/teams${path}`, init);
const versionsOf = async (name: string) =>
  Object.keys((await registry.storage.packages.package('', name).read())?.document.versions ?? {});

beforeAll(async () => {
  registry = await startRegistry({ settings: { registryDomain: DOMAIN } });
  alice = await loginUser(registry.url, 'alice');
  bob = await loginUser(registry.url, 'bob');
  eve = await loginUser(registry.url, 'eve');
  // Eve published in com.shared before anyone claimed it.
  expect((await publishVersion(registry.url, eve, 'com.shared.eves-tool', '1.0.0')).status).toBe(201);
});
afterAll(async () => {
  await registry?.close();
});

describe('/-/pkg/v1/teams', () => {
  it('a user creates a team (its first member), adds a member and claims a namespace; everyone signed in reads it', async () => {
    const created = await teams('', { method: 'POST', token: alice, body: { name: 'studio' } });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ name: 'studio', created: expect.any(String), members: ['alice'], namespaces: [] });
    expect((await teams('/studio/members/bob', { method: 'PUT', token: alice })).body.members).toEqual(['alice', 'bob']);
    const claimed = await teams(`/studio/namespaces/${encodeURIComponent('com.studio.*')}`, { method: 'PUT', token: bob });
    expect(claimed.status).toBe(200);
    expect(claimed.body.namespaces).toEqual(['com.studio.*']);
    const listed = await teams('', { token: eve });
    expect(listed.body.teams).toContainEqual(claimed.body);
    expect((await teams('/studio', { token: eve })).body).toEqual(claimed.body);
    expect((await teams('')).status).toBe(401);
  });

  it('only members publish a new package in the namespace; the refusal names the team', async () => {
    const refused = await publishVersion(registry.url, eve, 'com.studio.game', '1.0.0');
    expect(refused.status).toBe(403);
    expect(refused.body.error).toBe(
      "'com.studio.game' is in the namespace 'com.studio.*' of team 'studio': only its members and administrators may publish new packages there",
    );
    expect(await registry.storage.packages.package('', 'com.studio.game').read()).toBeUndefined();
    expect((await publishVersion(registry.url, bob, 'com.studio.game', '1.0.0')).status).toBe(201);
    // Outside the namespace (the prefix itself, a look-alike) anyone publishes.
    expect((await publishVersion(registry.url, eve, 'com.studio', '1.0.0')).status).toBe(201);
    expect((await publishVersion(registry.url, eve, 'com.studioz.game', '1.0.0')).status).toBe(201);
  });

  it('refuses a large publish body before reading it', async () => {
    const { body } = publishBody('com.studio.large', '1.0.0', { readme: 'x'.repeat(2 * 1024 * 1024) });
    const refused = await request(`${registry.url}/com.studio.large`, { method: 'PUT', token: eve, body });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toContain("of team 'studio'");
  });

  it('an existing package keeps its maintainers: a maintainer added with npm owner publishes, a member who is not one does not', async () => {
    const doc = (await request(`${registry.url}/com.studio.game`, { token: bob })).body;
    const withEve = { ...doc, maintainers: [...doc.maintainers, { name: 'eve', email: 'eve@example.com' }] };
    const owners = await request(`${registry.url}/com.studio.game/-rev/${doc._rev}`, {
      method: 'PUT',
      token: bob,
      body: withEve,
    });
    expect(owners.status).toBe(200);
    expect((await publishVersion(registry.url, eve, 'com.studio.game', '1.1.0')).status).toBe(201);
    const notOwner = await publishVersion(registry.url, alice, 'com.studio.game', '1.2.0');
    expect(notOwner.status).toBe(403);
    expect(notOwner.body.error).toBe("You are not a maintainer of 'com.studio.game'");
    expect(await versionsOf('com.studio.game')).toEqual(['1.0.0', '1.1.0']);
  });

  it('a namespace that overlaps another team’s, or where others publish, or too wide, needs an administrator', async () => {
    expect((await teams('', { method: 'POST', token: eve, body: { name: 'rivals' } })).status).toBe(201);
    const claim = (namespace: string, token = eve, team = 'rivals') =>
      teams(`/${team}/namespaces/${encodeURIComponent(namespace)}`, { method: 'PUT', token });
    const taken = await claim('com.studio.*');
    expect(taken.status).toBe(409);
    expect(taken.body.error).toBe("'com.studio.*' is owned by team 'studio'");
    const narrower = await claim('com.studio.tools.*');
    expect(narrower.status).toBe(403);
    expect(narrower.body.error).toBe(
      "'com.studio.tools.*' overlaps 'com.studio.*' of team 'studio': only an administrator can give it to team 'rivals'",
    );
    expect((await claim('com.*')).body.error).toBe(
      "'com.*' is too wide to claim without an administrator: name at least 2 labels, such as 'com.studio.*'",
    );
    const others = await claim('com.shared.*', alice, 'studio');
    expect(others.status).toBe(403);
    expect(others.body.error).toBe(
      "'com.shared.*' holds packages published by users outside team 'studio' (com.shared.eves-tool by eve): only an administrator can give it to the team",
    );
    expect((await registry.storage.teams.get('', 'rivals'))?.namespaces).toEqual([]);
    expect((await registry.storage.teams.get('', 'studio'))?.namespaces).toEqual(['com.studio.*']);
    // The operator administers: a narrower namespace goes to another team, and the longest decides.
    await registry.services.teams.claim('', OPERATOR, 'rivals', 'com.studio.tools.*');
    expect((await publishVersion(registry.url, eve, 'com.studio.tools.build', '1.0.0')).status).toBe(201);
    expect((await publishVersion(registry.url, bob, 'com.studio.tools.lint', '1.0.0')).status).toBe(403);
    // Eve's package in com.shared stays hers when the administrator gives the namespace to studio.
    await registry.services.teams.claim('', OPERATOR, 'studio', 'com.shared.*');
    expect((await publishVersion(registry.url, eve, 'com.shared.eves-tool', '1.0.1')).status).toBe(201);
    expect((await publishVersion(registry.url, eve, 'com.shared.another', '1.0.0')).status).toBe(403);
  });

  it('only members change a team; a released namespace is free again', async () => {
    const byEve = await teams('/studio/members/eve', { method: 'PUT', token: eve });
    expect(byEve.status).toBe(403);
    expect(byEve.body.error).toBe("Only members of team 'studio' and administrators may change it");
    expect((await teams('/studio', { method: 'DELETE', token: eve })).status).toBe(403);
    expect(
      (await teams(`/studio/namespaces/${encodeURIComponent('com.shared.*')}`, { method: 'DELETE', token: eve })).status,
    ).toBe(403);
    const released = await teams(`/studio/namespaces/${encodeURIComponent('com.shared.*')}`, { method: 'DELETE', token: alice });
    expect(released.body.namespaces).toEqual(['com.studio.*']);
    expect((await publishVersion(registry.url, eve, 'com.shared.another', '1.0.0')).status).toBe(201);
    expect((await teams('/studio/members/bob', { method: 'DELETE', token: alice })).body.members).toEqual(['alice']);
    expect((await publishVersion(registry.url, bob, 'com.studio.after-leaving', '1.0.0')).status).toBe(403);
  });

  it('refuses bad input with a reason and changes nothing', async () => {
    const before = await registry.storage.teams.list('');
    const cases: [ReturnType<typeof teams>, number, string][] = [
      [teams('', { method: 'POST', token: alice, body: { name: 'Bad Name' } }), 422, "Invalid team name 'Bad Name'"],
      [teams('', { method: 'POST', token: alice, body: {} }), 400, "'name'"],
      [teams('', { method: 'POST', token: alice, body: { name: 'studio' } }), 409, "Team 'studio' exists already"],
      [teams('/studio/members/nobody', { method: 'PUT', token: alice }), 404, "There is no user 'nobody'"],
      [teams('/studio/members/carol', { method: 'DELETE', token: alice }), 404, "'carol' is not a member of team 'studio'"],
      [teams('/studio/namespaces/com.studio', { method: 'PUT', token: alice }), 422, "'com.studio' is not a namespace"],
      [teams('/studio/namespaces/Com..x.*', { method: 'PUT', token: alice }), 422, 'is not a namespace'],
      [
        teams('/studio/namespaces/com.other.*', { method: 'DELETE', token: alice }),
        404,
        "Team 'studio' does not own 'com.other.*'",
      ],
      [teams('/nobody/members/alice', { method: 'PUT', token: alice }), 404, "There is no team 'nobody'"],
      [teams('/NOBODY', { token: alice }), 422, 'Invalid team name'],
    ];
    for (const [response, status, error] of cases) {
      const res = await response;
      expect(res.status, res.text).toBe(status);
      expect(res.body.error).toContain(error);
    }
    expect(await registry.storage.teams.list('')).toEqual(before);
  });

  it('refuses changes by read-only and package-limited tokens', async () => {
    const readonly = await registry.services.auth.issueToken('', 'alice', true);
    expect((await teams('', { method: 'POST', token: readonly, body: { name: 'ro' } })).body.error).toBe(
      'This token is read-only',
    );
    const limited = await request(`${registry.url}/-/npm/v1/tokens`, {
      method: 'POST',
      token: alice,
      body: { password: 'secret-password', packages: ['com.studio.*'] },
    });
    expect(limited.status).toBe(201);
    const refused = await teams('', { method: 'POST', token: limited.body.token, body: { name: 'limited' } });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toContain('changing teams needs a token without a package limit');
    expect(await registry.storage.teams.get('', 'limited')).toBeUndefined();
  });

  it('a claim made through one node counts on another at once; a tenant created again has no teams', async () => {
    const other = await startRegistry({ settings: { registryDomain: DOMAIN }, dataDir: registry.dataDir });
    try {
      await new TenantAdmin(registry.storage).create('cycle', {});
      const onA = registryHost(registry.url, `cycle.${DOMAIN}`);
      const onB = registryHost(other.url, `cycle.${DOMAIN}`);
      const member = await loginOn(onA, 'member');
      const outsider = await loginOn(onB, 'outsider');
      const created = await onA.request('/-/pkg/v1/teams', { method: 'POST', token: member, body: { name: 'studio' } });
      expect(created.status).toBe(201);
      expect((await onA.request('/-/pkg/v1/teams/studio/namespaces/com.cycle.*', { method: 'PUT', token: member })).status).toBe(
        200,
      );
      const publish = (on: typeof onA, token: string, name: string) =>
        on.request(`/${name}`, { method: 'PUT', token, body: publishBody(name, '1.0.0').body });
      const refused = await publish(onB, outsider, 'com.cycle.game');
      expect(refused.status).toBe(403);
      expect(refused.body.error).toContain("of team 'studio'");
      expect((await onB.request('/-/pkg/v1/teams', { token: outsider })).body.teams).toHaveLength(1);

      await new TenantAdmin(registry.storage).delete('cycle');
      await new TenantAdmin(registry.storage).create('cycle', {});
      // Node B learns of the new tenant at its next request (SQLite) or over the bus: until then
      // the host is 404. Its accounts are new too: sign up again, then nothing of the old teams is left.
      for (let i = 0; i < 40 && (await onB.request('/-/pkg/v1/teams')).status === 404; i++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const newcomer = await loginOn(onB, 'outsider');
      expect((await onB.request('/-/pkg/v1/teams', { token: newcomer })).body.teams).toEqual([]);
      expect((await publish(onB, newcomer, 'com.cycle.game')).status).toBe(201);
    } finally {
      await other.close();
    }
  });

  it('keeps each registry’s teams apart', async () => {
    await new TenantAdmin(registry.storage).create('acme', {});
    const acme = registryHost(registry.url, `acme.${DOMAIN}`);
    const token = await loginOn(acme, 'eve');
    expect((await acme.request('/-/pkg/v1/teams', { token })).body.teams).toEqual([]);
    // The global registry's studio namespace is no rule on acme.
    const { body } = publishBody('com.studio.game', '1.0.0');
    expect((await acme.request('/com.studio.game', { method: 'PUT', token, body })).status).toBe(201);
  });
});
