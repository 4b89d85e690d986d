import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TenantAdmin } from '@pkg/server';
import { loginUser, publishVersion, runRegistryCli, startRegistry, type TestRegistry } from '@pkg/testkit';
import { teamCommand } from '../../src/admin/team-command.js';

/**
 * `pkg-registry team …` against the data directory of a running server: in-process through the
 * command's own entry (fast), and once as the built binary (run `npm run build` first).
 */
let registry: TestRegistry;
let eve: string;

async function team(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io = {
    stdout: { write: (text: string) => void (stdout += text) },
    stderr: { write: (text: string) => void (stderr += text) },
    env: {},
    readStdin: async () => '',
  };
  const code = await teamCommand([...args, '--data', registry.dataDir], io);
  return { code, stdout, stderr };
}

beforeAll(async () => {
  registry = await startRegistry({ profile: 'embedded' });
  await loginUser(registry.url, 'alice');
  eve = await loginUser(registry.url, 'eve');
  expect((await publishVersion(registry.url, eve, 'com.studio.eves', '1.0.0')).status).toBe(201);
});
afterAll(async () => {
  await registry?.close();
});

describe('pkg-registry team', () => {
  it('creates a team, adds a member, claims a namespace the running server enforces, lists it', async () => {
    expect(await team('create', 'studio')).toEqual({
      code: 0,
      stdout: "Created team 'studio' in the global registry.\n",
      stderr: '',
    });
    expect((await team('add', 'studio', 'alice')).stdout).toBe("Added 'alice' to team 'studio' of the global registry.\n");
    // The operator administers: eve publishes in com.studio already, and keeps her package.
    const claimed = await team('claim', 'studio', 'com.studio.*', '--json');
    expect(claimed.code).toBe(0);
    expect(JSON.parse(claimed.stdout)).toEqual({
      name: 'studio',
      created: expect.any(String),
      members: ['alice'],
      namespaces: ['com.studio.*'],
    });
    const refused = await publishVersion(registry.url, eve, 'com.studio.new', '1.0.0');
    expect(refused.status).toBe(403);
    expect(refused.body.error).toContain("of team 'studio'");
    expect((await publishVersion(registry.url, eve, 'com.studio.eves', '1.0.1')).status).toBe(201);

    const list = await team('list');
    expect(list.stdout).toMatch(/^TEAM\s+NAMESPACES\s+MEMBERS\nstudio\s+com\.studio\.\*\s+alice\n$/);
    expect(JSON.parse((await team('list', '--json')).stdout)).toEqual([JSON.parse(claimed.stdout)]);
  });

  it('releases, removes and deletes', async () => {
    expect((await team('release', 'studio', 'com.studio.*')).stdout).toBe(
      "Team 'studio' of the global registry no longer owns 'com.studio.*'.\n",
    );
    expect((await publishVersion(registry.url, eve, 'com.studio.new', '1.0.0')).status).toBe(201);
    expect((await team('remove', 'studio', 'alice')).code).toBe(0);
    expect((await team('delete', 'studio')).stdout).toBe(
      "Deleted team 'studio' of the global registry; its namespaces are free.\n",
    );
    expect((await team('list')).stdout).toBe('No teams in the global registry.\n');
  });

  it('acts on a tenant with --tenant, apart from the global registry', async () => {
    await new TenantAdmin(registry.storage).create('acme', {});
    expect((await team('create', 'studio', '--tenant', 'acme')).stdout).toBe("Created team 'studio' in tenant 'acme'.\n");
    expect((await team('list')).stdout).toBe('No teams in the global registry.\n');
    expect(JSON.parse((await team('list', '--tenant', 'acme', '--json')).stdout).map((t: { name: string }) => t.name)).toEqual([
      'studio',
    ]);
    expect(await team('list', '--tenant', 'nowhere')).toEqual({
      code: 1,
      stdout: '',
      stderr: "Error: tenant 'nowhere' does not exist\n",
    });
  });

  it('refuses mistakes with a reason (2 for usage, 1 for what cannot be done) and changes nothing', async () => {
    await team('create', 'tools');
    const cases: [string[], number, string][] = [
      [[], 2, 'a team command is required'],
      [['rename', 'tools'], 2, "unknown team command 'rename'"],
      [['add', 'tools'], 2, "'team add' needs <team> <user>"],
      [['create', 'a', 'b'], 2, "unexpected argument 'b'"],
      [['create', 'Bad Name'], 2, "invalid team name 'Bad Name'"],
      [['claim', 'tools', 'com.tools'], 2, "'com.tools' is not a namespace"],
      [['create', 'tools'], 1, "team 'tools' exists already"],
      [['add', 'tools', 'nobody'], 1, "there is no user 'nobody' in this registry"],
      [['add', 'nobody', 'alice'], 1, "there is no team 'nobody' in this registry"],
      [['release', 'tools', 'com.tools.*'], 1, "team 'tools' does not own 'com.tools.*'"],
    ];
    const before = await registry.storage.teams.list('');
    for (const [args, code, message] of cases) {
      const run = await team(...args);
      expect(run.code, args.join(' ')).toBe(code);
      expect(run.stdout).toBe('');
      expect(run.stderr).toContain(`Error: ${message}`);
    }
    expect(await registry.storage.teams.list('')).toEqual(before);
  });

  it('runs as the built binary', async () => {
    const run = await runRegistryCli(['team', 'add', 'tools', 'eve', '--data', registry.dataDir]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect((await registry.storage.teams.get('', 'tools'))?.members).toEqual(['eve']);
    const help = await runRegistryCli(['team', 'help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('claim <team> <prefix>.*');
  });
});
