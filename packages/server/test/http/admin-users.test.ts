import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loginUser, publishVersion, request, startRegistry, type TestRegistry } from '@pkg/testkit';
import { Invitations } from '../../src/services/invitations.js';
import { hashPassword } from '../../src/services/passwords.js';

/**
 * Administrators manage the accounts of their registry over HTTP (no shell needed): list,
 * create, disable, grant the role, delete, invite; invitations are one-time links that work
 * while sign-up is closed; new passwords meet the policy. Every refusal says why and changes
 * nothing. Runs on both profiles (invitations live in the shared store).
 */
let registry: TestRegistry;
let open: TestRegistry;
let adminToken: string;
const USERS = '/-/pkg/v1/admin/users';
const PASSWORD = 'a long admin passphrase';

beforeAll(async () => {
  // Sign-up closed and the policy's default minimum: what a studio runs.
  [registry, open] = await Promise.all([
    startRegistry({ settings: { signup: false, passwordMinLength: 8 } }),
    startRegistry({ settings: { passwordMinLength: 8 } }),
  ]);
  const created = await registry.storage.registry.users.create('', {
    name: 'root',
    email: 'root@example.com',
    passwordHash: await hashPassword(PASSWORD),
    createdAt: new Date().toISOString(),
    disabled: false,
    admin: true,
  });
  expect(created).toBe(true);
  adminToken = await loginUser(registry.url, 'root', PASSWORD);
});
afterAll(async () => {
  await Promise.all([registry?.close(), open?.close()]);
});

const api = (path: string, init: Parameters<typeof request>[1] = {}) =>
  request(`${registry.url}${path}`, { token: adminToken, ...init });

describe('administrators manage users over HTTP', () => {
  it('create a user while sign-up is closed (a generated password shown once), list it, and it can log in', async () => {
    const created = await api(USERS, { method: 'POST', body: { name: 'carol', email: 'carol@example.com' } });
    expect(created.status, created.text).toBe(201);
    expect(created.body).toMatchObject({ name: 'carol', email: 'carol@example.com', admin: false, disabled: false });
    expect(created.body.password).toMatch(/^[A-Za-z0-9_-]{24}$/);
    expect(await loginUser(registry.url, 'carol', created.body.password)).toBeTruthy();

    const chosen = await api(USERS, { method: 'POST', body: { name: 'dave', password: 'dave chose this', admin: true } });
    expect(chosen.status).toBe(201);
    expect(chosen.body.password).toBeUndefined();
    expect(chosen.body.admin).toBe(true);

    const list = await api(USERS);
    expect(list.status).toBe(200);
    expect(list.body.users.map((u: { name: string; admin: boolean }) => [u.name, u.admin])).toEqual([
      ['carol', false],
      ['dave', true],
      ['root', true],
    ]);
    expect(list.text).not.toContain('scrypt');

    // The administrator reads the audit log, which names who made the accounts.
    const audit = await api('/-/pkg/v1/audit?action=user.create');
    expect(audit.status, audit.text).toBe(200);
    expect(audit.text).not.toContain(created.body.password);
    const entries = JSON.stringify(audit.body);
    expect(entries).toContain('"user":"root"');
    expect(entries).toContain('user carol');
  });

  it('refuses passwords the policy refuses, and names that exist, changing nothing', async () => {
    const before = await api(USERS);
    for (const [body, status, reason] of [
      [{ name: 'eve', password: 'short' }, 422, 'password must be at least 8 characters'],
      [{ name: 'eve', password: 'Password1' }, 422, 'password is one of the most common passwords: choose another'],
      [{ name: 'evelynne', password: 'EVELYNNE' }, 422, 'password must not be the user name'],
      [{ name: 'carol', password: 'another long one' }, 409, "user 'carol' exists already in the global registry"],
      [{ name: 'bad name', password: 'another long one' }, 422, 'user name must be 1-128 characters'],
      [{ name: 'eve', role: 'admin' }, 400, "Unknown field 'role'"],
      [{ name: 'eve', admin: 'yes' }, 400, "'admin' must be true or false"],
    ] as const) {
      const res = await api(USERS, { method: 'POST', body });
      expect(res.status, JSON.stringify(body)).toBe(status);
      expect(res.body.error).toContain(reason);
    }
    expect((await api(USERS)).body).toEqual(before.body);
  });

  it('disable revokes the tokens; delete revokes them, ends team memberships and keeps the packages', async () => {
    await api(USERS, { method: 'POST', body: { name: 'frank', password: 'frank is careful' } });
    const token = await loginUser(registry.url, 'frank', 'frank is careful');
    expect((await publishVersion(registry.url, token, 'com.frank.tool', '1.0.0')).status).toBe(201);

    const disabled = await api(`${USERS}/frank`, { method: 'PATCH', body: { disabled: true } });
    expect(disabled.status, disabled.text).toBe(200);
    expect(disabled.body).toMatchObject({ name: 'frank', disabled: true, revokedTokens: 1 });
    expect((await request(`${registry.url}/-/whoami`, { token })).status).toBe(401);
    await api(`${USERS}/frank`, { method: 'PATCH', body: { disabled: false } });
    const weak = await api(`${USERS}/frank`, { method: 'PATCH', body: { password: 'frank', disabled: true } });
    expect(weak.status).toBe(422);
    expect((await api(USERS)).body.users.find((u: { name: string }) => u.name === 'frank').disabled).toBe(false);
    const reset = await api(`${USERS}/frank`, { method: 'PATCH', body: { password: 'frank has a new one' } });
    expect(reset.status, reset.text).toBe(200);
    expect(await loginUser(registry.url, 'frank', 'frank has a new one')).toBeTruthy();

    const again = await loginUser(registry.url, 'frank', 'frank has a new one');
    const team = await request(`${registry.url}/-/pkg/v1/teams`, { method: 'POST', token: again, body: { name: 'franks' } });
    expect(team.status, team.text).toBe(201);
    const deleted = await api(`${USERS}/frank`, { method: 'DELETE' });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ name: 'frank', deleted: true, revokedTokens: 2 });
    expect((await request(`${registry.url}/-/whoami`, { token: again })).status).toBe(401);
    const document = await request(`${registry.url}/com.frank.tool`);
    expect(document.status).toBe(200);
    expect(document.body.maintainers).toContainEqual(expect.objectContaining({ name: 'frank' }));
    expect((await api('/-/pkg/v1/teams/franks')).body.members).toEqual([]);
    expect((await api(`${USERS}/frank`, { method: 'DELETE' })).status).toBe(404);
  });

  it('grants and withdraws the role; an administrator cannot remove themselves', async () => {
    await api(USERS, { method: 'POST', body: { name: 'gina', password: 'gina is careful' } });
    const gina = await loginUser(registry.url, 'gina', 'gina is careful');
    expect((await request(`${registry.url}${USERS}`, { token: gina })).status).toBe(403);
    expect((await api(`${USERS}/gina`, { method: 'PATCH', body: { admin: true } })).body.admin).toBe(true);
    expect((await request(`${registry.url}${USERS}`, { token: gina })).status).toBe(200);
    await api(`${USERS}/gina`, { method: 'PATCH', body: { admin: false } });

    for (const init of [
      { method: 'DELETE' },
      { method: 'PATCH', body: { admin: false } },
      { method: 'PATCH', body: { disabled: true } },
    ]) {
      const res = await api(`${USERS}/root`, init);
      expect(res.status).toBe(403);
      expect(res.body.error).toMatch(/cannot delete, disable or demote themselves/);
    }
  });

  it('refuses everyone else with the reason: anonymous, a user, a read-only token', async () => {
    const anonymous = await request(`${registry.url}${USERS}`);
    expect(anonymous.status).toBe(401);
    await api(USERS, { method: 'POST', body: { name: 'ken', password: 'ken is careful' } });
    const user = await loginUser(registry.url, 'ken', 'ken is careful');
    const plain = await request(`${registry.url}${USERS}`, {
      method: 'POST',
      token: user,
      body: { name: 'x1', password: 'long enough pw' },
    });
    expect(plain.status).toBe(403);
    expect(plain.body.error).toBe("'ken' is not an administrator of this registry");
    const readonly = await api('/-/npm/v1/tokens', { method: 'POST', body: { password: PASSWORD, readonly: true } });
    expect(readonly.status, readonly.text).toBe(201);
    expect((await request(`${registry.url}${USERS}`, { token: readonly.body.token })).status).toBe(200);
    const refused = await request(`${registry.url}${USERS}`, {
      method: 'POST',
      token: readonly.body.token,
      body: { name: 'x2', password: 'long enough pw' },
    });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatch(/This token is limited/);
    expect((await api(USERS)).body.users.map((u: { name: string }) => u.name)).not.toContain('x2');
  });
});

describe('invitations', () => {
  const invite = async (body: Record<string, unknown> = {}) => {
    const res = await api('/-/pkg/v1/admin/invitations', { method: 'POST', body });
    expect(res.status, res.text).toBe(201);
    expect(res.body.url).toMatch(new RegExp(`^${registry.url}/-/web/invitation/[A-Za-z0-9_-]+$`));
    return res.body.url as string;
  };

  /** The form of the invitation page as a browser sends it (cookie and field of the CSRF token). */
  async function accept(url: string, fields: Record<string, string>) {
    // The CSRF cookie and field from the sign-in page, which has a form whatever the link is worth.
    const signIn = await fetch(`${registry.url}/-/web/signin`);
    const csrf = /name="csrf" value="([^"]+)"/.exec(await signIn.text())?.[1];
    const cookie = signIn.headers
      .getSetCookie()
      .map((c) => c.split(';')[0])
      .join('; ');
    const page = await fetch(url);
    const html = await page.text();
    const sent = await fetch(url, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
      body: new URLSearchParams({ csrf: csrf ?? '', ...fields }).toString(),
    });
    return { page, html, sent, text: await sent.text() };
  }

  it('a link works once while sign-up is closed, signs the new user in, and then is gone', async () => {
    const url = await invite({ email: 'hana@example.com' });
    const weak = await accept(url, { name: 'hana', email: 'hana@example.com', password: 'password' });
    expect(weak.page.status).toBe(200);
    expect(weak.html).toContain('root invited you');
    expect(weak.sent.status).toBe(422);
    expect(weak.text).toContain('Password is one of the most common passwords: choose another.');

    const done = await accept(url, { name: 'hana', email: 'hana@example.com', password: 'hana has a passphrase' });
    expect(done.sent.status).toBe(303);
    expect(done.sent.headers.get('location')).toBe('/-/web/account?welcome=1');
    expect(done.sent.headers.getSetCookie().some((c) => /session=/.test(c))).toBe(true);
    expect(await loginUser(registry.url, 'hana', 'hana has a passphrase')).toBeTruthy();

    const reused = await fetch(url);
    expect(reused.status).toBe(404);
    expect(await reused.text()).toContain('This invitation cannot be used');
    const twice = await accept(url, { name: 'hana2', password: 'hana has a passphrase' });
    expect(twice.sent.status).toBe(404);
    expect((await api(USERS)).body.users.map((u: { name: string }) => u.name)).not.toContain('hana2');
  });

  it('an invitation as administrator makes one; an expired or made-up link does nothing', async () => {
    const url = await invite({ admin: true });
    await accept(url, { name: 'ivan', password: 'ivan has a passphrase' });
    const ivan = (await api(USERS)).body.users.find((u: { name: string }) => u.name === 'ivan');
    expect(ivan).toMatchObject({ admin: true });
    const madeUp = await fetch(`${registry.url}/-/web/invitation/not-a-real-secret`);
    expect(madeUp.status).toBe(404);
    // Made two hours ago with a lifetime of one: in the store, but past its expiry.
    const stale = await new Invitations(registry.storage.registry, {
      ttlSeconds: 3600,
      passwordMinLength: 8,
      now: () => new Date(Date.now() - 2 * 3600_000),
    }).create('', { invitedBy: 'root' });
    const expired = await accept(`${registry.url}/-/web/invitation/${stale.secret}`, {
      name: 'late',
      password: 'late has a passphrase',
    });
    expect(expired.page.status).toBe(404);
    expect(expired.sent.status).toBe(404);
    expect((await api(USERS)).body.users.map((u: { name: string }) => u.name)).not.toContain('late');
  });

  it('users who are not administrators cannot invite', async () => {
    const user = await loginUser(registry.url, 'hana', 'hana has a passphrase');
    const res = await request(`${registry.url}/-/pkg/v1/admin/invitations`, { method: 'POST', token: user, body: {} });
    expect(res.status).toBe(403);
  });
});

describe('the password policy on sign-up (npm adduser)', () => {
  it('refuses a short or common password for a new account, and keeps old accounts working', async () => {
    for (const [password, reason] of [
      ['short', 'password must be at least 8 characters'],
      ['iloveyou', 'password is one of the most common passwords: choose another'],
    ]) {
      const res = await request(`${open.url}/-/user/org.couchdb.user:newbie`, {
        method: 'PUT',
        body: { name: 'newbie', password, email: 'newbie@example.com' },
      });
      expect(res.status).toBe(422);
      expect(res.body.error).toBe(reason);
    }
    expect(await open.storage.registry.users.get('', 'newbie')).toBeUndefined();
    expect(await loginUser(open.url, 'newbie', 'a fine long passphrase')).toBeTruthy();
  });
});
