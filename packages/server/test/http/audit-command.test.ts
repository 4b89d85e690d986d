import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loginUser, publishVersion, request, startRegistry, type TestRegistry } from '@pkg/testkit';
import type { AdminIo } from '../../src/admin/admin-io.js';
import { auditCommand } from '../../src/admin/audit-command.js';
import { tenantCommand } from '../../src/admin/tenant-command.js';
import { userCommand } from '../../src/admin/user-command.js';
import { storageCommand } from '../../src/admin/storage-command.js';
import type { AuditEntry } from '../../src/storage/ports.js';

const NAME = 'com.acme.operated';
let clock = Date.now();
let registry: TestRegistry;
let alice: string;

beforeAll(async () => {
  registry = await startRegistry({ now: () => new Date(clock), settings: { auditRetentionDays: 30 } });
  alice = await loginUser(registry.url, 'alice');
  for (const version of ['1.0.0', '1.1.0-beta.1', '1.1.0-beta.2', '1.1.0-beta.3'])
    expect(
      (await publishVersion(registry.url, alice, NAME, version, { tag: version.includes('beta') ? 'next' : 'latest' })).status,
    ).toBe(201);
  // One refused attempt: a wrong password.
  await request(`${registry.url}/-/user/org.couchdb.user:alice`, {
    method: 'PUT',
    body: { name: 'alice', password: 'wrong-password' },
  });
});
afterAll(async () => {
  await registry.close();
});

type Command = (argv: string[], io: AdminIo) => Promise<number>;
/** A `pkg-registry` command in-process, on the registry's storage (either profile). */
async function run(command: Command, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io: AdminIo = {
    stdout: { write: (text) => void (stdout += text) },
    stderr: { write: (text) => void (stderr += text) },
    env: { PKG_REGISTRY_DATABASE: registry.config.database, PKG_REGISTRY_STORAGE: registry.config.storage },
    readStdin: async () => 'a-new-long-password\n',
  };
  const code = await command([...args, '--data', registry.dataDir], io);
  return { code, stdout, stderr };
}
const audit = async (args: string[]) => {
  const result = await run(auditCommand, [...args, '--json']);
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  return JSON.parse(result.stdout) as { entries: AuditEntry[]; next: string | null };
};

describe('pkg-registry audit', () => {
  it('lists the log newest first, as a table or as JSON, and filters it', async () => {
    const table = await run(auditCommand, ['--user', 'alice', '--limit', '3']);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/^TIME\s+ACTION\s+OUTCOME\s+WHO\s+FROM\s+TARGET\s+REASON\n/);
    expect(table.stdout).toMatch(/user\.login\s+refused\s+alice\s+127\.0\.0\.1/);
    expect(table.stdout).toMatch(/More: --before \d+\n$/);

    const publishes = await audit(['--package', NAME, '--action', 'package.publish']);
    expect(publishes.entries.map((e) => e.target)).toEqual([
      `${NAME}@1.1.0-beta.3`,
      `${NAME}@1.1.0-beta.2`,
      `${NAME}@1.1.0-beta.1`,
      `${NAME}@1.0.0`,
    ]);
    const refused = await audit(['--outcome', 'refused']);
    expect(refused.entries).toEqual([
      expect.objectContaining({ action: 'user.login', user: 'alice', reason: expect.any(String) }),
    ]);
    const today = new Date(clock).toISOString().slice(0, 10);
    expect((await audit(['--since', today, '--until', today, '--action', 'token'])).entries.length).toBeGreaterThan(0);
    expect((await audit(['--until', '2000-01-01'])).entries).toEqual([]);
    const page = await audit(['--limit', '2']);
    expect(page.next).toBe(page.entries[1]!.id);
    expect((await audit(['--limit', '2', '--before', page.next!])).entries[0]!.id).not.toBe(page.entries[1]!.id);
  });

  it('refuses bad filters with a reason and exit code 2', async () => {
    const bad = await run(auditCommand, ['--outcome', 'maybe']);
    expect(bad).toMatchObject({
      code: 2,
      stdout: '',
      stderr: expect.stringContaining('--outcome must be one of success, refused, failed'),
    });
    expect((await run(auditCommand, ['--since', 'yesterday'])).code).toBe(2);
    expect((await run(auditCommand, ['--limit', '0'])).code).toBe(2);
  });

  it("records the operator's changes: tenants in the global log, users and retention in their registry's", async () => {
    expect((await run(tenantCommand, ['create', 'acme'])).code).toBe(0);
    expect((await run(tenantCommand, ['set', 'acme', '--signup', 'false'])).code).toBe(0);
    expect((await run(userCommand, ['disable', 'alice'])).code).toBe(0);
    expect((await run(userCommand, ['enable', 'alice'])).code).toBe(0);
    expect((await run(userCommand, ['reset-password', 'alice', '--password-stdin'])).code).toBe(0);
    expect((await run(storageCommand, ['retain', '--keep-prereleases', '2'])).code).toBe(0);
    expect((await run(tenantCommand, ['delete', 'acme'])).code).toBe(0);

    const operator = (await audit(['--limit', '20'])).entries.filter((e) => e.via === 'cli').reverse();
    expect(operator.map((e) => [e.action, e.target])).toEqual([
      ['tenant.create', 'tenant acme'],
      ['tenant.settings', 'tenant acme'],
      ['user.disable', 'user alice'],
      ['user.enable', 'user alice'],
      ['user.password', 'user alice'],
      ['retention.remove', `${NAME}@1.1.0-beta.1`],
      ['tenant.delete', 'tenant acme'],
    ]);
    for (const entry of operator) {
      expect(entry).toMatchObject({
        outcome: 'success',
        user: null,
        tokenId: null,
        address: null,
        details: expect.objectContaining({ operator: expect.any(String) }),
      });
    }
  });

  it('keeps entries auditRetentionDays: older ones go at the next pruning', async () => {
    const before = (await audit(['--limit', '1000'])).entries.length;
    expect(before).toBeGreaterThan(0);
    clock += 31 * 86_400_000;
    // The operator's reset revoked alice's tokens: she logs in with the new password.
    const token = await loginUser(registry.url, 'alice', 'a-new-long-password');
    expect((await publishVersion(registry.url, token, NAME, '2.0.0')).status).toBe(201);
    await registry.services.auditRetention.run();
    const after = await audit(['--limit', '1000']);
    expect(after.entries.map((e) => e.action)).toEqual(['package.publish', 'token.create']);
  });
});
