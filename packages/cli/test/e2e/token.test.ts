import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publishFixtures, request, startRegistry, type TestRegistry } from '@pkg/testkit';
import { makeHome, pipedLogin, runPkg, type Home } from '../support/spawn.js';

/** `pkg token create|list|revoke` (the built binary) against a real registry. */
let registry: TestRegistry;
let home: Home;
const PASSWORD = 'token-user-password';

beforeAll(async () => {
  registry = await startRegistry();
  home = await makeHome();
  expect((await pipedLogin(home, registry.url, 'tokenuser', PASSWORD)).code).toBe(0);
});
afterAll(async () => {
  await registry?.close();
});

const pkg = (args: string[], input?: string) =>
  runPkg([...args, '--registry', registry.url], { home, ...(input !== undefined ? { input } : {}) });

describe('pkg token', () => {
  it('create asks for the password, makes a limited token and shows it once', async () => {
    const created = await pkg(
      ['token', 'create', '--read-only', '--packages', 'com.studio.*', '--expires', '30', '--name', 'ci', '--json'],
      `${PASSWORD}\n`,
    );
    // The prompt goes to stderr, so that stdout holds only JSON.
    expect(created.stderr).toBe('Password: [hidden]\n');
    expect(created.code).toBe(0);
    const body = JSON.parse(created.stdout);
    expect(body).toMatchObject({ success: true, name: 'ci', readonly: true, packages: ['com.studio.*'], registry: registry.url });
    expect(body.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const login = (await request(`${registry.url}/-/npm/v1/tokens`, { token: body.token })).status;
    // A limited token does not manage tokens; it reads what it may.
    expect(login).toBe(403);
    await publishFixtures(registry.url, await loginToken(), { 'com.studio.tool': [{ version: '1.0.0' }] });
    expect((await request(`${registry.url}/com.studio.tool`, { token: body.token })).status).toBe(200);
    expect((await request(`${registry.url}/com.other.tool`, { token: body.token })).status).toBe(403);
  });

  it('create with a wrong password fails with the catalogue error, creating nothing', async () => {
    const before = (await pkg(['token', 'list', '--json'])).stdout;
    const wrong = await pkg(['token', 'create', '--json'], 'not the password\n');
    expect(wrong.code).toBe(1);
    expect(JSON.parse(wrong.stdout)).toMatchObject({ success: false, error: 'Authentication failed: Invalid credentials' });
    expect(JSON.parse((await pkg(['token', 'list', '--json'])).stdout).tokens).toHaveLength(JSON.parse(before).tokens.length);
  });

  it('list shows keys, limits and last use; revoke ends one by the start of its key', async () => {
    const listed = await pkg(['token', 'list']);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/^[0-9a-f]{16} {2}\S{6}… {2}ci$/m);
    expect(listed.stdout).toContain('limits: read-only; packages com.studio.*; expires ');
    const tokens = JSON.parse((await pkg(['token', 'list', '--json'])).stdout).tokens as { key: string; name: string }[];
    const ci = tokens.find((t) => t.name === 'ci')!;
    const revoked = await pkg(['token', 'revoke', ci.key.slice(0, 8)]);
    expect(revoked.stdout).toBe(`Revoked token ${ci.key}\n`);
    expect(JSON.parse((await pkg(['token', 'list', '--json'])).stdout).tokens).toHaveLength(tokens.length - 1);
    const missing = await pkg(['token', 'revoke', 'ffffffffffffffff']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("Error: You have no token with the key 'ffffffffffffffff' on");
  });

  it('wrong usage exits 2', async () => {
    const unknown = await pkg(['token', 'mint']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("Error: Unknown token action 'mint'");
    const both = await pkg(['token', 'create', '--read-only', '--publish-only'], `${PASSWORD}\n`);
    expect(both.code).toBe(2);
    expect((await pkg(['token', 'create', '--expires', '0'], `${PASSWORD}\n`)).code).toBe(2);
  });
});

async function loginToken(): Promise<string> {
  const res = await request(`${registry.url}/-/user/org.couchdb.user:tokenuser`, {
    method: 'PUT',
    body: { name: 'tokenuser', password: PASSWORD },
  });
  return res.body.token as string;
}
