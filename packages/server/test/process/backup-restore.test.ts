import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  loginUser,
  publishVersion,
  request,
  runRegistryCli,
  startRegistry,
  startScaleOutBacking,
  testPostgresUrl,
  testRedisUrl,
  type ScaleOutBacking,
  type TestProfile,
  type TestRegistry,
} from '@pkg/testkit';

// Spawns the built binary for backup, restore and verify: run `npm run build` first.

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'backup-restore-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The settings of a registry as a config file the admin commands read. */
async function configFileOf(settings: Record<string, string>, name: string): Promise<string> {
  const file = path.join(dir, `${name}.json`);
  await writeFile(file, JSON.stringify(settings));
  return file;
}

/**
 * Publishes versions of a few packages one after another until stopped; each version whose
 * 201 arrived is recorded with the time it arrived.
 */
function publishLoad(registry: TestRegistry, token: string) {
  const acknowledged: { name: string; version: string; at: number }[] = [];
  let running = true;
  let failure: Error | undefined;
  const done = (async () => {
    for (let i = 0; running; i++) {
      const name = `com.example.load${i % 3}`;
      const version = `1.0.${Math.floor(i / 3)}`;
      const res = await publishVersion(registry.url, token, name, version);
      if (res.status !== 201) throw new Error(`publish ${name}@${version}: ${res.status} ${res.text}`);
      acknowledged.push({ name, version, at: Date.now() });
    }
  })().catch((err: unknown) => {
    failure = err instanceof Error ? err : new Error(String(err));
  });
  return {
    acknowledged,
    /** Resolves once `count` versions are acknowledged; rejects when a publish failed. */
    async waitFor(count: number) {
      while (acknowledged.length < count) {
        if (failure) throw failure;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    async stop() {
      running = false;
      await done;
      if (failure) throw failure;
    },
  };
}

function sriOf(bytes: Buffer): string {
  return `sha512-${createHash('sha512').update(bytes).digest('base64')}`;
}

/** An advisory, a webhook (with its secret) and an audit entry whose delivery waits in the outbox. */
async function recordChanges(registry: TestRegistry): Promise<void> {
  const { storage } = registry;
  await storage.advisories.put('', {
    name: 'com.example.load0',
    id: 'CVE-2025-0001',
    severity: 'high',
    vulnerableVersions: '<2.0.0',
    patchedVersions: '<0.0.0',
    title: 'Flaw',
    description: 'A crafted file runs code.',
    url: null,
    publishedBy: 'alice',
    publishedAt: '2025-02-01T00:00:00.000Z',
    updatedAt: '2025-02-01T00:00:00.000Z',
    withdrawnAt: null,
  });
  // Subscribed to owner changes only: the publishes of the load cause no deliveries.
  await storage.webhooks.addWebhook('', {
    id: 'hook-owners',
    url: 'http://127.0.0.1:9/owners',
    events: ['owner'],
    secrets: [{ secret: 'the-secret-of-the-hook-0123456789', createdAt: '2025-01-01T00:00:00.000Z', expiresAt: null }],
    createdAt: '2025-01-01T00:00:00.000Z',
    createdBy: 'alice',
  });
  // Recent: the restored registry prunes entries older than its audit retention.
  const at = new Date().toISOString();
  await storage.audit.append(
    '',
    {
      at,
      action: 'owner.add',
      outcome: 'success',
      user: 'alice',
      tokenId: null,
      address: '127.0.0.1',
      via: 'http',
      package: 'com.example.load0',
      target: 'com.example.load0',
      reason: null,
      details: { added: ['bob'] },
    },
    [
      {
        id: 'delivery-owner-add',
        hook: 'hook-owners',
        event: 'owner.add',
        payload: '{"event":"owner.add"}',
        createdAt: at,
        giveUpAt: at,
      },
    ],
  );
}

/** What recordChanges wrote is in the restored registry as it was: the same ids, times and secret. */
async function expectChangesRestored(registry: TestRegistry, restored: TestRegistry): Promise<void> {
  expect(await restored.storage.advisories.listAll('')).toEqual(await registry.storage.advisories.listAll(''));
  const ownerChanges = { action: 'owner', limit: 10 };
  const [entry] = await registry.storage.audit.query('', ownerChanges);
  expect(entry).toMatchObject({ action: 'owner.add', details: { added: ['bob'] } });
  expect(await restored.storage.audit.query('', ownerChanges)).toEqual([entry]);
  expect(await restored.storage.webhooks.listWebhooks('')).toEqual(await registry.storage.webhooks.listWebhooks(''));
  const deliveries = await restored.storage.webhooks.listDeliveries('', 'hook-owners', 10);
  expect(deliveries.map((delivery) => delivery.id)).toEqual(['delivery-owner-add']);
}

const profiles: [TestProfile, boolean][] = [
  ['embedded', true],
  ['scale-out', Boolean(testPostgresUrl && testRedisUrl)],
];

describe.each(profiles)('backup under write load and restore (%s)', (profile, available) => {
  it.skipIf(!available)(
    'every version acknowledged before the backup began is restored with its tarball; tokens work; verify passes',
    async () => {
      const registry = await startRegistry({ profile });
      let restoredBacking: ScaleOutBacking | undefined;
      let restored: TestRegistry | undefined;
      try {
        const token = await loginUser(registry.url, 'alice');
        await registry.storage.teams.create('', 'studio', '2025-01-01T00:00:00.000Z', ['alice']);
        await registry.storage.teams.claim('', 'studio', 'com.studio.*');
        await recordChanges(registry);
        const source =
          profile === 'embedded'
            ? ['--data', registry.dataDir]
            : [
                '--config',
                await configFileOf({ database: registry.config.database, storage: registry.config.storage }, 'source'),
              ];
        const load = publishLoad(registry, token);
        await load.waitFor(6);

        const backupDir = path.join(dir, `backup-${profile}`);
        const backupStarted = Date.now();
        const backup = await runRegistryCli(['backup', backupDir, ...source]);
        const afterBackup = load.acknowledged.length;
        // Publishes go on during the backup: it did not stop the registry.
        await load.waitFor(afterBackup + 1);
        await load.stop();
        expect(backup.stderr).toBe('');
        expect(backup.code).toBe(0);
        expect(backup.stdout).toMatch(/Backed up \d+ packages in 1 registries, \d+ tarballs \(all verified\)/);
        const manifest = JSON.parse(await readFile(path.join(backupDir, 'backup.json'), 'utf8'));
        expect(manifest).toMatchObject({
          format: 'pkg-registry-backup',
          method: profile === 'embedded' ? 'sqlite-online-backup' : 'postgres-repeatable-read',
        });
        expect(JSON.stringify(manifest)).not.toMatch(/\/\/[^@/]+:[^@/]+@/);

        // The verify of the live registry, and of the copy itself, find nothing wrong.
        const liveVerify = await runRegistryCli(['verify', ...source, '--json']);
        expect(liveVerify.code).toBe(0);
        expect(JSON.parse(liveVerify.stdout)).toMatchObject({ problems: [], packages: 3 });

        let target: string[];
        let restoreRun: Awaited<ReturnType<typeof runRegistryCli>>;
        let targetSettings: Record<string, string>;
        if (profile === 'embedded') {
          const data = path.join(dir, `restored-${profile}`);
          target = ['--data', data];
          targetSettings = {};
          restoredBacking = undefined;
          restoreRun = await runRegistryCli(['restore', backupDir, ...target]);
          restored = await startRegistry({ profile: 'embedded', dataDir: data });
        } else {
          restoredBacking = await startScaleOutBacking({ redis: false });
          targetSettings = restoredBacking.settings;
          target = ['--config', await configFileOf(targetSettings, 'target')];
          restoreRun = await runRegistryCli(['restore', backupDir, ...target]);
          restored = await startRegistry({ profile: 'embedded', settings: targetSettings });
        }
        expect(restoreRun.stderr).toBe('');
        expect(restoreRun.code).toBe(0);
        const before = load.acknowledged.filter((entry) => entry.at < backupStarted);
        expect(before.length).toBeGreaterThanOrEqual(6);
        for (const { name, version } of before) {
          const doc = await request(`${restored.url}/${name}`);
          expect(doc.status).toBe(200);
          const record = doc.body.versions[version];
          expect(record, `${name}@${version}`).toBeDefined();
          const tarball = await fetch(record.dist.tarball.replace(/^https?:\/\/[^/]+/, restored.url));
          expect(tarball.status).toBe(200);
          expect(sriOf(Buffer.from(await tarball.arrayBuffer()))).toBe(record.dist.integrity);
        }
        // Nothing half-written: restore verified every version's tarball in the target.
        const verified = /verified (\d+) tarballs/.exec(restoreRun.stdout);
        expect(Number(verified?.[1])).toBeGreaterThanOrEqual(before.length);
        if (profile === 'embedded') {
          const restoredVerify = await runRegistryCli(['verify', ...target, '--json']);
          expect(restoredVerify.code).toBe(0);
          expect(JSON.parse(restoredVerify.stdout).problems).toEqual([]);
        }
        expect(await restored.storage.teams.list('')).toEqual(await registry.storage.teams.list(''));
        await expectChangesRestored(registry, restored);
        const whoami = await request(`${restored.url}/-/whoami`, { token });
        expect(whoami).toMatchObject({ status: 200, body: { username: 'alice' } });
        expect((await publishVersion(restored.url, token, 'com.example.after', '1.0.0')).status).toBe(201);

        if (profile === 'scale-out') {
          // A second restore into the now occupied target is refused and changes nothing.
          const again = await runRegistryCli(['restore', backupDir, ...target]);
          expect(again.code).toBe(2);
          expect(again.stderr).toMatch(/^Error: the restore target is not empty/);
          expect((await request(`${restored.url}/com.example.after`)).status).toBe(200);
        }
      } finally {
        await restored?.close();
        await restoredBacking?.close();
        await registry.close();
      }
    },
  );
});

describe.each(profiles)('storage usage and quotas after a restore (%s)', (profile, available) => {
  it.skipIf(!available)('the restored registry counts what the source did, and its quotas refuse what they refused', async () => {
    const quota = { quotaPackages: 3 };
    const registry = await startRegistry({ profile, settings: quota });
    let restoredBacking: ScaleOutBacking | undefined;
    let restored: TestRegistry | undefined;
    try {
      const token = await loginUser(registry.url, 'alice');
      for (const [name, version] of [
        ['com.example.a', '1.0.0'],
        ['com.example.a', '1.1.0'],
        ['com.example.b', '1.0.0'],
      ] as const)
        expect((await publishVersion(registry.url, token, name, version)).status).toBe(201);
      await registry.storage.registry.tenants.create({
        name: 'acme',
        incarnation: 'a'.repeat(32),
        createdAt: new Date().toISOString(),
        settings: { quotaBytes: 1_000_000, quotaPackages: 1 },
      });
      const usage = await registry.storage.usage.usage('');
      expect(usage).toMatchObject({ packages: 2, files: 3 });
      expect(usage.bytes).toBeGreaterThan(0);
      const source =
        profile === 'embedded'
          ? ['--data', registry.dataDir]
          : [
              '--config',
              await configFileOf({ database: registry.config.database, storage: registry.config.storage }, 'usage-source'),
            ];
      const backupDir = path.join(dir, `usage-backup-${profile}`);
      const backup = await runRegistryCli(['backup', backupDir, ...source]);
      expect(backup.stderr).toBe('');
      expect(backup.code).toBe(0);

      let target: string[];
      if (profile === 'embedded') {
        const data = path.join(dir, `usage-restored-${profile}`);
        target = ['--data', data];
        const run = await runRegistryCli(['restore', backupDir, ...target]);
        expect(run.stderr).toBe('');
        expect(run.code).toBe(0);
        restored = await startRegistry({ profile: 'embedded', dataDir: data, settings: quota });
      } else {
        restoredBacking = await startScaleOutBacking({ redis: false });
        target = ['--config', await configFileOf(restoredBacking.settings, 'usage-target')];
        const run = await runRegistryCli(['restore', backupDir, ...target]);
        expect(run.stderr).toBe('');
        expect(run.code).toBe(0);
        restored = await startRegistry({ profile: 'embedded', settings: { ...restoredBacking.settings, ...quota } });
      }
      // The usage table came back as it was, nothing left to measure; the tenant's own quotas too.
      expect(await restored.storage.usage.usage('')).toEqual(usage);
      expect(await restored.storage.usage.unmeasured('')).toEqual([]);
      expect((await restored.storage.registry.tenants.get('acme'))?.settings).toEqual({
        quotaBytes: 1_000_000,
        quotaPackages: 1,
      });
      const report = await runRegistryCli(['storage', ...target, '--json'], {
        env: { PKG_REGISTRY_QUOTA_PACKAGES: '3' },
      });
      expect(report.code).toBe(0);
      const [global, acme] = JSON.parse(report.stdout);
      expect(global).toMatchObject({ usage, bytes: usage.bytes, packages: 2, quota: { packages: 3 } });
      expect(acme).toMatchObject({ quota: { bytes: 1_000_000, packages: 1, bytesFrom: 'tenant', packagesFrom: 'tenant' } });

      // The quota counts the restored packages: one more fits, the next is refused naming the usage.
      expect((await publishVersion(restored.url, token, 'com.example.c', '1.0.0')).status).toBe(201);
      const refused = await publishVersion(restored.url, token, 'com.example.d', '1.0.0');
      expect(refused.status).toBe(403);
      expect(refused.text).toContain('QUOTA_EXCEEDED');
      expect(refused.text).toContain('has reached its quota of 3 packages (3 in use)');
      // A new version of a restored package is not a new package.
      expect((await publishVersion(restored.url, token, 'com.example.b', '1.1.0')).status).toBe(201);
    } finally {
      await restored?.close();
      await restoredBacking?.close();
      await registry.close();
    }
  });
});

describe('backup, restore and verify refuse bad input', () => {
  it('a non-empty destination, a directory that is no backup, a missing registry', async () => {
    const occupied = await mkdtemp(path.join(dir, 'occupied-'));
    await writeFile(path.join(occupied, 'keep'), 'x');
    const registry = await startRegistry({ profile: 'embedded' });
    try {
      const backup = await runRegistryCli(['backup', occupied, '--data', registry.dataDir]);
      expect(backup.code).toBe(2);
      expect(backup.stderr).toContain(`Error: the backup destination ${occupied} is not empty`);
      expect(await readFile(path.join(occupied, 'keep'), 'utf8')).toBe('x');
    } finally {
      await registry.close();
    }
    const restore = await runRegistryCli(['restore', occupied, '--data', path.join(dir, 'nowhere')]);
    expect(restore.code).toBe(2);
    expect(restore.stderr).toContain(`Error: ${occupied} is not a pkg-registry backup`);
    const verify = await runRegistryCli(['verify', '--data', path.join(dir, 'missing')]);
    expect(verify.code).toBe(1);
    expect(verify.stderr).toContain('there is no registry database');
    const usage = await runRegistryCli(['backup']);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('a directory is required');
  });

  it('verify names a version whose tarball is missing or damaged, exit 1', async () => {
    const registry = await startRegistry({ profile: 'embedded' });
    try {
      const token = await loginUser(registry.url, 'alice');
      expect((await publishVersion(registry.url, token, 'com.example.broken', '1.0.0')).status).toBe(201);
      expect((await publishVersion(registry.url, token, 'com.example.broken', '1.1.0')).status).toBe(201);
      const tarballs = path.join(registry.dataDir, 'tarballs', '_global', 'com.example.broken');
      await rm(path.join(tarballs, 'com.example.broken-1.0.0.tgz'));
      await writeFile(path.join(tarballs, 'com.example.broken-1.1.0.tgz'), 'damaged');
      const run = await runRegistryCli(['verify', '--data', registry.dataDir]);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain('com.example.broken@1.0.0: the tarball is missing');
      expect(run.stderr).toContain('com.example.broken@1.1.0: the tarball does not match its integrity');
    } finally {
      await registry.close();
    }
  });
});
