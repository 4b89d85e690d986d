import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loginUser, publishVersion, request, runRegistryCli, spawnRegistry, startRegistry } from '@pkg/testkit';

// Spawns the built binary: run `npm run build` first.

/** Publishes each version of com.example.tool in order: pre-releases under `beta` (which moves on) or `next`. */
async function seed(url: string, token: string): Promise<void> {
  const versions: [string, string?][] = [
    ['1.0.0'],
    ['1.1.0-beta.1', 'beta'],
    ['1.1.0-beta.2', 'beta'],
    ['1.1.0-beta.3', 'next'],
    ['1.1.0-beta.4', 'beta'],
    ['1.1.0-beta.5', 'beta'],
  ];
  for (const [version, tag] of versions) {
    const res = await publishVersion(url, token, 'com.example.tool', version, tag ? { tag } : {});
    expect(res.status).toBe(201);
  }
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

describe('pre-release retention', () => {
  it('storage retain keeps the newest N pre-releases and every tagged version; --dry-run changes nothing', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'retention-'));
    cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
    const registry = await startRegistry({ profile: 'embedded', dataDir });
    try {
      const token = await loginUser(registry.url, 'alice');
      await seed(registry.url, token);
    } finally {
      await registry.close().catch(() => undefined);
    }
    // The registry is stopped: retain is run as an administrator would on the embedded default.
    const dry = await runRegistryCli(['storage', 'retain', '--keep-prereleases', '2', '--dry-run', '--json', '--data', dataDir]);
    expect(dry.stderr).toBe('');
    expect(dry.code).toBe(0);
    const planned = JSON.parse(dry.stdout);
    expect(planned.dryRun).toBe(true);
    expect(planned.removals.map((r: { version: string }) => r.version).sort()).toEqual(['1.1.0-beta.1', '1.1.0-beta.2']);

    const run = await runRegistryCli(['storage', 'retain', '--keep-prereleases', '2', '--data', dataDir]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('removed com.example.tool@1.1.0-beta.1 (beyond the newest pre-releases kept)');
    expect(run.stdout).toContain('Removed 2 pre-releases');

    const after = await startRegistry({ profile: 'embedded', dataDir });
    try {
      const doc = await request(`${after.url}/com.example.tool`);
      expect(Object.keys(doc.body.versions).sort()).toEqual(['1.0.0', '1.1.0-beta.3', '1.1.0-beta.4', '1.1.0-beta.5']);
      expect(doc.body['dist-tags']).toEqual({ latest: '1.0.0', next: '1.1.0-beta.3', beta: '1.1.0-beta.5' });
      expect((await fetch(`${after.url}/com.example.tool/-/com.example.tool-1.1.0-beta.1.tgz`)).status).toBe(404);
      const verify = await runRegistryCli(['verify', '--data', dataDir, '--json']);
      expect(JSON.parse(verify.stdout)).toMatchObject({ problems: [], tarballs: 4 });
      const storage = await runRegistryCli(['storage', '--data', dataDir, '--json']);
      expect(JSON.parse(storage.stdout)[0]).toMatchObject({ versions: 4, orphanFiles: 0 });
    } finally {
      await after.close();
    }
  });

  it('the retention setting makes the server apply the rules at start-up, logging each removal', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'retention-'));
    cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
    const registry = await startRegistry({ profile: 'embedded', dataDir });
    try {
      const token = await loginUser(registry.url, 'alice');
      await seed(registry.url, token);
    } finally {
      await registry.close().catch(() => undefined);
    }
    const server = await spawnRegistry({ dataDir, args: ['--retention', '{"keepPrereleases": 0}'] });
    try {
      const finished = await server.waitForLog((e) => e.msg === 'retention run finished');
      expect(finished.removed).toBe(3);
      const removals = server.logEntries().filter((e) => e.msg === 'retention removed a pre-release');
      expect(removals.map((e) => e.version).sort()).toEqual(['1.1.0-beta.1', '1.1.0-beta.2', '1.1.0-beta.4']);
      const doc = await request(`${server.url}/com.example.tool`);
      expect(Object.keys(doc.body.versions).sort()).toEqual(['1.0.0', '1.1.0-beta.3', '1.1.0-beta.5']);
      expect((await server.stop()).code).toBe(0);
    } finally {
      await server.cleanup();
    }
  });

  it('refuses retention without a rule, and a bad retention setting at start-up (exit 2)', async () => {
    const none = await runRegistryCli(['storage', 'retain', '--data', '/nonexistent']);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('storage retain needs --keep-prereleases or --prerelease-max-age');
    const bad = await runRegistryCli(['serve', '--data', '/nonexistent/data', '--retention', '{"keep": 1}']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("Error: setting 'retention' has an unknown field 'keep'");
  });
});
