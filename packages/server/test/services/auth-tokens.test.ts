/**
 * Accounts and tokens as a service, on memory storage: no server, no database. Token listing and
 * revocation live here once, for the API's logout and the web account page alike.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { ProtocolError } from '@pkg/protocol';
import { createMemoryStorage, loadConfig, serverDeps, type Storage } from '@pkg/server';
import { createServices, type Services } from '../../src/services/services.js';

let storage: Storage;
let services: Services;

beforeEach(() => {
  storage = createMemoryStorage();
  services = createServices(serverDeps(loadConfig({ flags: {}, env: {} }), storage));
});

const input = (name: string, password = 'correct horse') => ({ name, password, email: undefined, clientIp: '192.0.2.1' });

async function loginToken(name: string): Promise<string> {
  return (await services.auth.login('', input(name), { signup: true })).response.token;
}

describe('AuthService on memory storage', () => {
  it('signs up, then authenticates the token it issued', async () => {
    const token = await loginToken('ada');
    expect(await services.auth.authenticate('', token)).toMatchObject({ user: 'ada', readonly: false });
    expect(await storage.registry.users.get('', 'ada')).toMatchObject({ name: 'ada', disabled: false });
  });

  it('refuses a wrong password, and an unknown user when sign-up is closed, alike', async () => {
    await loginToken('ada');
    const wrong = services.auth.login('', input('ada', 'wrong'), { signup: true });
    await expect(wrong).rejects.toThrow(ProtocolError);
    await expect(wrong).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
    await expect(services.auth.login('', input('bob'), { signup: false })).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
  });

  it('lists a user’s tokens by public id, never the token, and revokes one by that id', async () => {
    const first = await loginToken('ada');
    const second = await loginToken('ada');
    await loginToken('bob');
    const listed = await services.auth.listTokens('', 'ada');
    expect(listed).toHaveLength(2);
    for (const row of listed) {
      expect(row.id).toMatch(/^[0-9a-f]{16}$/);
      expect(JSON.stringify(row)).not.toContain(first);
      expect(JSON.stringify(row)).not.toContain(second);
    }
    // Authenticated once: the token is in the service's cache when it is revoked.
    expect(await services.auth.authenticate('', first)).not.toBeNull();
    const firstRow = listed.find((row) => first.startsWith(row.prefix ?? '\0'))!;
    expect(await services.auth.revokeToken('', 'ada', firstRow.id)).toBe(true);
    expect(await services.auth.authenticate('', first)).toBeNull();
    expect(await services.auth.authenticate('', second)).not.toBeNull();
    expect(await services.auth.listTokens('', 'ada')).toHaveLength(1);
  });

  it("revokes nothing for an id that is not the user's, or not an id", async () => {
    await loginToken('ada');
    const bobToken = await loginToken('bob');
    const [bobRow] = await services.auth.listTokens('', 'bob');
    expect(await services.auth.revokeToken('', 'ada', bobRow!.id)).toBe(false);
    for (const id of ['', 'zz', 'x'.repeat(16), bobRow!.id.toUpperCase()]) {
      expect(await services.auth.revokeToken('', 'bob', id)).toBe(false);
    }
    expect(await services.auth.authenticate('', bobToken)).not.toBeNull();
  });

  it('logs out the token it is given, and only that one', async () => {
    const first = await loginToken('ada');
    const second = await loginToken('ada');
    expect(await services.auth.authenticate('', first)).not.toBeNull();
    expect(await services.auth.logout('', first)).toBe(true);
    expect(await services.auth.logout('', first)).toBe(false);
    expect(await services.auth.authenticate('', first)).toBeNull();
    expect(await services.auth.authenticate('', second)).not.toBeNull();
  });
});
