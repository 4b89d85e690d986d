import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  loginOn,
  publishBody,
  registryHost,
  runRegistryCli,
  startRegistry,
  type RegistryHost,
  type TestRegistry,
} from '@pkg/testkit';

// The admin commands run as the built binary (run `npm run build` first), in another process,
// against the data directory of a server that keeps running in this one.
const DOMAIN = 'registry.test';
let registry: TestRegistry;
let global: RegistryHost;

beforeAll(async () => {
  registry = await startRegistry({ settings: { registryDomain: DOMAIN } });
  global = registryHost(registry.url, DOMAIN);
});
afterAll(async () => {
  await registry?.close();
});

const admin = (args: string[], input?: string) => runRegistryCli([...args, '--data', registry.dataDir], { input });

/** Asks until the running server gives the expected status: the tenant cache lasts about a second. */
async function eventually(host: RegistryHost, path: string, status: number): Promise<number> {
  let last = 0;
  for (let i = 0; i < 40; i++) {
    last = (await host.request(path)).status;
    if (last === status) return last;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return last;
}

describe('pkg-registry tenant', () => {
  it('create makes a tenant the running server serves at <name>.<domain>; list shows it', async () => {
    const acme = registryHost(registry.url, `acme.${DOMAIN}`);
    expect((await acme.request('/-/ping')).status).toBe(404);

    const created = await admin(['tenant', 'create', 'acme']);
    expect(created.stderr).toBe('');
    expect(created.code).toBe(0);
    expect(created.stdout).toContain("Created tenant 'acme' (server defaults)");
    expect(await eventually(acme, '/-/ping', 200)).toBe(200);

    const list = await admin(['tenant', 'list']);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/^NAME\s+CREATED\s+SETTINGS\nacme\s+\d{4}-\d\d-\d\dT\S+\s+server defaults\n$/);
    const json = await admin(['tenant', 'list', '--json']);
    expect(JSON.parse(json.stdout)).toEqual([
      { name: 'acme', incarnation: expect.stringMatching(/^[0-9a-f]{32}$/), createdAt: expect.any(String), settings: {} },
    ]);
  });

  it('create takes the tenant settings, and set changes them while the server runs', async () => {
    const created = await admin([
      'tenant', 'create', 'locked', '--signup', 'false', '--read-access', 'token', '--rate-limit-anonymous', '50',
    ]); // prettier-ignore
    expect(created.code).toBe(0);
    expect(created.stdout).toContain('signup=false, readAccess=token, rateLimitAnonymous=50');
    const locked = registryHost(registry.url, `locked.${DOMAIN}`);
    expect(await eventually(locked, '/-/user/org.couchdb.user:nobody', 401)).toBe(401);
    const refused = await locked.request('/-/user/org.couchdb.user:newcomer', {
      method: 'PUT',
      body: { name: 'newcomer', password: 'pw' },
    });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('x-ratelimit-limit')).toBe('50');

    const set = await admin(['tenant', 'set', 'locked', '--signup', 'true', '--read-access', 'default']);
    expect(set.code).toBe(0);
    expect(set.stdout).toContain("Tenant 'locked' now has signup=true, rateLimitAnonymous=50");
    let status = 0;
    for (let i = 0; i < 40 && status !== 201; i++) {
      status = (
        await locked.request('/-/user/org.couchdb.user:newcomer', { method: 'PUT', body: { name: 'newcomer', password: 'pw' } })
      ).status;
      if (status !== 201) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(status).toBe(201);
  });

  it('create and set take quotas; set ... default removes them', async () => {
    const created = await admin(['tenant', 'create', 'capped', '--quota-bytes', '1048576', '--quota-packages', '20']);
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toContain('quotaBytes=1048576, quotaPackages=20');
    const set = await admin(['tenant', 'set', 'capped', '--quota-bytes', 'default', '--quota-packages', '0']);
    expect(set.code, set.stderr).toBe(0);
    expect(set.stdout).toContain("Tenant 'capped' now has quotaPackages=0.");
    expect((await registry.storage.registry.tenants.get('capped'))!.settings).toEqual({ quotaPackages: 0 });
  });

  it('create takes uplinks as JSON; set ... default removes them', async () => {
    const uplinks = JSON.stringify([{ name: 'openupm', url: 'https://package.openupm.com', packages: ['com.cysharp.*'] }]);
    const created = await admin(['tenant', 'create', 'proxied', '--uplinks', uplinks]);
    expect(created.stderr).toBe('');
    expect(created.code).toBe(0);
    expect(created.stdout).toContain(
      'uplinks=[{"name":"openupm","url":"https://package.openupm.com","packages":["com.cysharp.*"]',
    );
    const [tenant] = JSON.parse((await admin(['tenant', 'list', '--json'])).stdout).filter(
      (t: { name: string }) => t.name === 'proxied',
    );
    expect(tenant.settings.uplinks).toEqual([
      {
        name: 'openupm',
        url: 'https://package.openupm.com',
        packages: ['com.cysharp.*'],
        maxAge: 300,
        timeout: 30,
        search: false,
      },
    ]);
    const reset = await admin(['tenant', 'set', 'proxied', '--uplinks', 'default']);
    expect(reset.code).toBe(0);
    expect(reset.stdout).toContain("Tenant 'proxied' now has server defaults.");
  });

  it('delete removes the tenant with its users; the running server answers 404 for it', async () => {
    await admin(['tenant', 'create', 'doomed']);
    const doomed = registryHost(registry.url, `doomed.${DOMAIN}`);
    expect(await eventually(doomed, '/-/ping', 200)).toBe(200);
    const token = await loginOn(doomed, 'resident');
    const { body } = publishBody('com.example.doomed', '1.0.0');
    expect((await doomed.request('/com.example.doomed', { method: 'PUT', token, body })).status).toBe(201);

    const deleted = await admin(['tenant', 'delete', 'doomed']);
    expect(deleted.code).toBe(0);
    expect(deleted.stdout).toBe("Deleted tenant 'doomed' with 1 user, 1 package and 1 tarball.\n");
    expect(await eventually(doomed, '/-/ping', 404)).toBe(404);
    expect(await registry.storage.registry.users.list('doomed')).toEqual([]);
    expect(await registry.storage.packages.package('doomed', 'com.example.doomed').read()).toBeUndefined();
    const keys: string[] = [];
    for await (const blob of registry.storage.blobs.list()) keys.push(blob.key);
    expect(keys.filter((key) => key.startsWith('doomed/'))).toEqual([]);
    expect((await admin(['user', 'list', '--tenant', 'doomed'])).code).toBe(1);
  });

  it.each([
    [['tenant', 'create', 'Upper'], 2, /invalid tenant name 'Upper': a tenant name is lower case/],
    [['tenant', 'create', 'dash-'], 2, /a tenant name is a DNS label/],
    [['tenant', 'create', 'a'.repeat(64)], 2, /at most 63 characters/],
    [['tenant', 'create', 'acme'], 1, /tenant 'acme' already exists/],
    [['tenant', 'create', 'x', '--signup', 'perhaps'], 2, /setting 'signup' must be true or false/],
    [['tenant', 'create', 'x', '--rate-limit-publish=-1'], 2, /setting 'rateLimitPublish' must be at least 0/],
    [['tenant', 'create', 'x', '--quota-bytes', 'lots'], 2, /setting 'quotaBytes' must be/],
    [['tenant', 'delete', 'missing'], 1, /tenant 'missing' does not exist/],
    [['tenant', 'delete'], 2, /'tenant delete' needs a tenant name/],
    [['tenant', 'frobnicate'], 2, /unknown tenant command 'frobnicate'/],
    [['tenant', 'list', '--bogus'], 2, /Unknown option '--bogus'/],
    [['tenant', 'list', '--signup', 'false'], 2, /settings flags only go with/],
    [
      ['tenant', 'create', 'x', '--uplinks', '[{"name":"u"}]'],
      2,
      /setting 'uplinks' uplink 'u': 'url' must be an absolute http\(s\) URL/,
    ],
    [['tenant', 'create', 'x', '--uplinks', 'not json'], 2, /setting 'uplinks' must be JSON/],
  ])('%j exits %i', async (args, code, message) => {
    const run = await admin(args);
    expect(run.code).toBe(code);
    expect(run.stderr).toMatch(/^Error: /);
    expect(run.stderr).toMatch(message);
  });

  it('refuses a data directory that holds no registry instead of creating one', async () => {
    const empty = await mkdtemp(path.join(tmpdir(), 'admin-empty-'));
    try {
      const run = await runRegistryCli(['user', 'list', '--data', empty]);
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(/there is no registry database at .*registry\.db/);
    } finally {
      await rm(empty, { recursive: true, force: true });
    }
  });
});

describe('pkg-registry user', () => {
  it('list shows the accounts of a registry', async () => {
    await loginOn(global, 'listed', 'listed-password');
    const acme = registryHost(registry.url, `acme.${DOMAIN}`);
    await loginOn(acme, 'acme-dev', 'acme-password');

    const globalList = await admin(['user', 'list']);
    expect(globalList.stdout).toMatch(/^NAME\s+EMAIL\s+CREATED\s+STATUS\s+ROLE\n/);
    expect(globalList.stdout).toMatch(/\nlisted\s+listed@example\.com\s+\S+\s+active\s+user\n/);
    expect(globalList.stdout).not.toContain('acme-dev');
    const acmeList = JSON.parse((await admin(['user', 'list', '--tenant', 'acme', '--json'])).stdout);
    expect(acmeList).toEqual([
      {
        name: 'acme-dev',
        email: 'acme-dev@example.com',
        createdAt: expect.any(String),
        disabled: false,
        admin: false,
        twoFactor: null,
      },
    ]);
    expect(JSON.stringify(acmeList)).not.toContain('scrypt');
  });

  it('a token the server has just used (and keeps in memory) stops working at once when another process revokes it', async () => {
    const token = await loginOn(global, 'cached', 'cached-password');
    for (let i = 0; i < 3; i++) expect((await global.request('/-/whoami', { token })).status).toBe(200);
    expect((await admin(['user', 'reset-password', 'cached', '--password-stdin'], 'another-password\n')).code).toBe(0);
    expect((await global.request('/-/whoami', { token })).status).toBe(401);
  });

  it('disable refuses logins and revokes tokens at once; enable lets the user log in again', async () => {
    const token = await loginOn(global, 'suspect', 'suspect-password');
    const disabled = await admin(['user', 'disable', 'suspect']);
    expect(disabled.code).toBe(0);
    expect(disabled.stdout).toBe("Disabled user 'suspect' of the global registry and revoked 1 tokens.\n");
    expect((await global.request('/-/whoami', { token })).status).toBe(401);
    const login = await global.request('/-/user/org.couchdb.user:suspect', {
      method: 'PUT',
      body: { name: 'suspect', password: 'suspect-password' },
    });
    expect(login.status).toBe(401);
    expect((await admin(['user', 'list'])).stdout).toMatch(/\nsuspect\s+\S+\s+\S+\s+disabled\s+user\n/);

    expect((await admin(['user', 'enable', 'suspect'])).code).toBe(0);
    expect(await loginOn(global, 'suspect', 'suspect-password')).toBeTruthy();
    // The old token stays revoked.
    expect((await global.request('/-/whoami', { token })).status).toBe(401);
  });

  it('reset-password prints a generated password, revokes tokens, and the old password stops working', async () => {
    const token = await loginOn(global, 'amnesiac', 'old-password');
    const reset = await admin(['user', 'reset-password', 'amnesiac']);
    expect(reset.code).toBe(0);
    const password = reset.stdout.trim();
    expect(password).toMatch(/^[A-Za-z0-9_-]{24}$/);
    expect(reset.stderr).toContain('1 tokens revoked');
    expect((await global.request('/-/whoami', { token })).status).toBe(401);
    const old = await global.request('/-/user/org.couchdb.user:amnesiac', {
      method: 'PUT',
      body: { name: 'amnesiac', password: 'old-password' },
    });
    expect(old.status).toBe(401);
    expect(await loginOn(global, 'amnesiac', password)).toBeTruthy();
  });

  it('reset-password --password-stdin takes the password from stdin, on a tenant', async () => {
    const acme = registryHost(registry.url, `acme.${DOMAIN}`);
    await loginOn(acme, 'piped', 'first-password');
    const reset = await admin(['user', 'reset-password', 'piped', '--tenant', 'acme', '--password-stdin'], 'second-password\n');
    expect(reset.code).toBe(0);
    expect(reset.stdout).toBe("Password of 'piped' of tenant 'acme' reset; 1 tokens revoked.\n");
    expect(reset.stdout).not.toContain('second-password');
    expect(await loginOn(acme, 'piped', 'second-password')).toBeTruthy();
  });

  it('create makes an account while sign-up is closed; --admin makes an administrator; the policy applies', async () => {
    const policy = { PKG_REGISTRY_PASSWORD_MIN_LENGTH: '8' };
    const weak = await runRegistryCli(['user', 'create', 'weakling', '--password-stdin', '--data', registry.dataDir], {
      input: 'qwerty123\n',
      env: policy,
    });
    expect(weak.code).toBe(1);
    expect(weak.stderr).toBe('Error: password is one of the most common passwords: choose another\n');
    const made = await runRegistryCli(
      ['user', 'create', 'boss', '--admin', '--email', 'boss@example.com', '--data', registry.dataDir],
      {
        env: policy,
      },
    );
    expect(made.code, made.stderr).toBe(0);
    const password = made.stdout.trim();
    expect(password).toMatch(/^[A-Za-z0-9_-]{24}$/);
    expect(made.stderr).toContain("Created administrator 'boss' of the global registry");
    const token = await loginOn(global, 'boss', password);
    expect((await global.request('/-/pkg/v1/admin/users', { token })).status).toBe(200);

    expect((await admin(['user', 'revoke-admin', 'boss'])).stdout).toContain("User 'boss' is no longer an administrator");
    expect((await global.request('/-/pkg/v1/admin/users', { token })).status).toBe(403);
    expect((await admin(['user', 'grant-admin', 'boss'])).code).toBe(0);
    expect((await admin(['user', 'list'])).stdout).toMatch(/\nboss\s+boss@example\.com\s+\S+\s+active\s+administrator\n/);
    const again = await admin(['user', 'create', 'boss']);
    expect(again.code).toBe(1);
    expect(again.stderr).toBe("Error: user 'boss' exists already in the global registry\n");
  });

  it("a tenant's administrators are its own: the global registry's know nothing of them", async () => {
    const acme = registryHost(registry.url, `acme.${DOMAIN}`);
    const made = await admin(
      ['user', 'create', 'acme-boss', '--admin', '--tenant', 'acme', '--password-stdin'],
      'acme boss passphrase\n',
    );
    expect(made.code, made.stderr).toBe(0);
    expect(made.stdout).toBe("Created administrator 'acme-boss' of tenant 'acme'.\n");
    const token = await loginOn(acme, 'acme-boss', 'acme boss passphrase');
    const listed = await acme.request('/-/pkg/v1/admin/users', { token });
    expect(listed.status).toBe(200);
    expect(listed.body.users.map((u: { name: string }) => u.name)).not.toContain('boss');
    expect((await global.request('/-/pkg/v1/admin/users', { token })).status).toBe(401);
  });

  it('invite prints a one-time link of the registry (--url) that opens the account form', async () => {
    const invited = await admin(['user', 'invite', '--email', 'new@example.com', '--url', `${registry.url}/`]);
    expect(invited.code, invited.stderr).toBe(0);
    const link = invited.stdout.trim();
    expect(link).toMatch(new RegExp(`^${registry.url}/-/web/invitation/[A-Za-z0-9_-]{40,}$`));
    expect(invited.stderr).toMatch(/good once until \d{4}-/);
    const page = await global.request(new URL(link).pathname);
    expect(page.status).toBe(200);
    expect(page.text).toContain('value="new@example.com"');
    const noUrl = await admin(['user', 'invite']);
    expect(noUrl.code).toBe(2);
    expect(noUrl.stderr).toMatch(/pass --url https:\/\/… or set publicUrl/);
  });

  it('delete revokes the tokens and keeps the packages', async () => {
    const token = await loginOn(global, 'leaver', 'leaver-password');
    const published = await global.request('/com.leaver.tool', {
      method: 'PUT',
      token,
      body: publishBody('com.leaver.tool', '1.0.0').body,
    });
    expect(published.status).toBe(201);
    const deleted = await admin(['user', 'delete', 'leaver']);
    expect(deleted.code, deleted.stderr).toBe(0);
    expect(deleted.stdout).toContain("Deleted user 'leaver' of the global registry and revoked 1 tokens; its packages stay");
    expect((await global.request('/-/whoami', { token })).status).toBe(401);
    expect((await global.request('/com.leaver.tool')).status).toBe(200);
    expect((await admin(['user', 'delete', 'leaver'])).stderr).toBe("Error: There is no user 'leaver' in the global registry\n");
  });

  it.each([
    [['user', 'disable', 'ghost'], 1, /There is no user 'ghost' in the global registry/],
    [['user', 'disable', 'ghost', '--tenant', 'nowhere'], 1, /tenant 'nowhere' does not exist/],
    [['user', 'enable'], 2, /'user enable' needs a user name/],
    [['user', 'reset-password', 'listed', '--password-stdin'], 2, /stdin holds no password/],
    [['user', 'list', '--password-stdin'], 2, /--password-stdin only goes with create and reset-password/],
    [['user', 'promote', 'listed'], 2, /unknown user command 'promote'/],
    [['user', 'delete'], 2, /'user delete' needs a user name/],
    [['user', 'disable', 'listed', '--admin'], 2, /--admin only goes with create and invite/],
    [['user', 'create', 'x', '--url', 'http://a'], 2, /--url only goes with invite/],
  ])('%j exits %i', async (args, code, message) => {
    const run = await admin(args);
    expect(run.code).toBe(code);
    expect(run.stderr).toMatch(message);
  });
});
