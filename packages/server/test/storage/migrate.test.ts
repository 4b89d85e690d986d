import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildTarball,
  freshPostgresSchema,
  sha1Hex,
  sha512Integrity,
  startS3Server,
  testPostgresUrl,
  type TestPostgres,
  type TestS3,
} from '@pkg/testkit';
import { migrateCommand } from '../../src/admin/migrate-command.js';
import { RegistrySignatures } from '../../src/services/registry-signatures.js';
import { loadConfig } from '../../src/config/config.js';
import { blobKeyFor, sigstoreKeyFor } from '../../src/storage/blob-keys.js';
import { createStorage, type Storage } from '../../src/storage/create-storage.js';
import { FsBlobStore } from '../../src/storage/drivers/fs/fs-blob-store.js';
import type { StoredPackage, TenantId } from '../../src/storage/ports.js';
import { stored, tenant, token, user } from '../contract/metadata-fixtures.js';

function runMigrate(args: string[]) {
  let stdout = '';
  let stderr = '';
  const io = { stdout: { write: (t: string) => void (stdout += t) }, stderr: { write: (t: string) => void (stderr += t) } };
  return migrateCommand(args, io).then((code) => ({ code, stdout, stderr }));
}

async function openEmbedded(dir: string): Promise<Storage> {
  return createStorage(loadConfig({ flags: { data: dir }, env: {} }));
}

/** A package whose versions carry real tarballs with their integrity, as publish leaves them. */
async function publishDirectly(storage: Storage, tenantId: TenantId, name: string, versions: string[]): Promise<void> {
  const pkg = stored(name, versions);
  for (const version of versions) {
    const tarball = buildTarball({ name, version, description: `${name} ${version}` }, [
      { path: 'Runtime/Code.cs', content: `// ${name}@${version}\n` },
    ]);
    pkg.document.versions[version]!.dist = {
      tarball: `${name}/-/${name}-${version}.tgz`,
      integrity: sha512Integrity(tarball),
      shasum: sha1Hex(tarball),
    };
    await storage.blobs.put(blobKeyFor(tenantId, name, version), tarball);
    await storage.blobs.put(sigstoreKeyFor(tenantId, name, version), Buffer.from(`{"bundle":"${name}@${version}"}`));
  }
  await storage.packages.package(tenantId, name).update(() => ({ next: pkg, result: null }));
}

/** Everything a registry holds, in a comparable form. */
async function snapshot(storage: Storage) {
  const tenants = await storage.registry.tenants.list();
  const out: Record<string, unknown> = { tenants };
  for (const t of ['', ...tenants.map((x) => x.name)]) {
    const packages: Record<string, StoredPackage | undefined> = {};
    for (const name of await storage.packages.listPackageNames(t, { includeUnpublished: true })) {
      // The stored JSON's length is a sizing hint only SQLite gives (ports.ts), not the package's data.
      const { documentBytes: _hint, ...stored } = (await storage.packages.package(t, name).read()) ?? {};
      packages[name] = Object.keys(stored).length === 0 ? undefined : (stored as StoredPackage);
    }
    out[`tenant:${t}`] = {
      downloads: await storage.downloadCounts.list(t),
      users: await storage.registry.users.list(t),
      tokens: await storage.registry.tokens.list(t),
      signingKeys: await storage.signingKeys.list(t),
      teams: await storage.teams.list(t),
      advisories: await storage.advisories.listAll(t),
      audit: await storage.audit.query(t, { limit: 1000 }),
      webhooks: await Promise.all(
        (await storage.webhooks.listWebhooks(t)).map(async (hook) => ({
          hook,
          deliveries: await storage.webhooks.listDeliveries(t, hook.id, 1000),
        })),
      ),
      packages,
    };
  }
  const blobs: Record<string, number> = {};
  for await (const blob of storage.blobs.list()) blobs[blob.key] = blob.size;
  out.blobs = blobs;
  return out;
}

/** An advisory (one withdrawn), a webhook, and two audit entries whose deliveries wait in the outbox. */
async function recordChanges(storage: Storage, t: TenantId): Promise<void> {
  const advisory = {
    name: 'com.acme.tool',
    id: 'CVE-2025-0001',
    severity: 'high' as const,
    vulnerableVersions: '<1.1.0',
    patchedVersions: '>=1.1.0',
    title: 'Flaw',
    description: 'A crafted file runs code.',
    url: null,
    publishedBy: 'ada',
    publishedAt: '2025-02-01T00:00:00.000Z',
    updatedAt: '2025-02-01T00:00:00.000Z',
    withdrawnAt: null,
  };
  await storage.advisories.put(t, advisory);
  await storage.advisories.put(t, { ...advisory, id: 'GHSA-old', withdrawnAt: '2025-02-03T00:00:00.000Z' });
  await storage.webhooks.addWebhook(t, {
    id: `hook-${t}`,
    url: 'http://127.0.0.1:9/hook',
    events: ['*'],
    secrets: [{ secret: `secret-${t}-0123456789`, createdAt: '2025-01-01T00:00:00.000Z', expiresAt: null }],
    createdAt: '2025-01-01T00:00:00.000Z',
    createdBy: 'ada',
  });
  for (const [i, version] of ['1.0.0', '1.1.0'].entries()) {
    const at = `2025-01-0${i + 1}T00:00:00.000Z`;
    await storage.audit.append(
      t,
      {
        at,
        action: 'package.publish',
        outcome: 'success',
        user: 'ada',
        tokenId: null,
        address: '127.0.0.1',
        via: 'http',
        package: 'com.acme.tool',
        target: `com.acme.tool@${version}`,
        reason: null,
        details: { version },
      },
      [
        {
          id: `delivery-${t}-${version}`,
          hook: `hook-${t}`,
          event: 'package.publish',
          payload: `{"version":"${version}"}`,
          createdAt: at,
          giveUpAt: '2025-01-05T00:00:00.000Z',
        },
      ],
    );
  }
}

/** One attempt at every delivery due at `now`: those `received` delivered, the others due again ten minutes later. */
async function settleDeliveries(storage: Storage, now: string, received: (id: string) => boolean): Promise<void> {
  for (const { delivery, claim } of await storage.webhooks.claimDeliveries(now, 60_000, 100)) {
    const done = received(delivery.id);
    await storage.webhooks.finishDelivery(delivery.id, claim, {
      at: now,
      status: done ? 'delivered' : 'pending',
      nextAttemptAt: done ? now : new Date(Date.parse(now) + 600_000).toISOString(),
      lastStatus: done ? 204 : 503,
      lastError: done ? null : 'the receiver answered HTTP 503',
    });
  }
}

let sourceDir: string;
let expected: Awaited<ReturnType<typeof snapshot>>;
beforeAll(async () => {
  sourceDir = await mkdtemp(path.join(tmpdir(), 'pkg-migrate-src-'));
  const source = await openEmbedded(sourceDir);
  try {
    await source.registry.tenants.create(tenant('acme', { signup: false, readAccess: 'token' }));
    for (const t of ['', 'acme']) {
      await source.registry.users.create(t, user('ada'));
      await source.registry.users.create(t, user('eve', { disabled: true }));
      await source.registry.tokens.create(t, token(`${t}h1`, 'ada'));
      await source.registry.tokens.create(t, { ...token(`${t}h2`, 'eve'), expiresAt: '2031-01-01T00:00:00.000Z' });
      await publishDirectly(source, t, 'com.acme.tool', ['1.0.0', '1.1.0']);
      await publishDirectly(source, t, 'com.acme.other', ['0.1.0']);
      // A rotated key and the one in use: both must travel, or copied signatures stop verifying.
      const signatures = new RegistrySignatures({ signingKeys: source.signingKeys, now: () => new Date() });
      await signatures.signingKey(t);
      await signatures.rotate(t);
      await source.teams.create(t, 'studio', '2025-01-01T00:00:00.000Z', ['ada', 'eve']);
      await source.teams.claim(t, 'studio', 'com.acme.*');
      await source.teams.create(t, 'empty', '2025-01-02T00:00:00.000Z', []);
      await recordChanges(source, t);
    }
    await settleDeliveries(source, '2025-01-04T00:00:00.000Z', (id) => id.endsWith('1.0.0'));
    // An unpublished package: its tombstone must travel, so its versions stay unusable.
    await source.packages.package('', 'com.acme.gone').update(() => ({
      next: { ...stored('com.acme.gone', []), publishedVersions: ['1.0.0'], unpublished: true },
      result: null,
    }));
    await source.downloadCounts.add([
      { tenant: '', name: 'com.acme.tool', version: '1.0.0', day: '2025-01-02', count: 7 },
      { tenant: '', name: 'com.acme.tool', version: '1.1.0', day: '2025-01-02', count: 3 },
      { tenant: 'acme', name: 'com.acme.other', version: '0.1.0', day: '2025-01-03', count: 5 },
    ]);
    expected = await snapshot(source);
  } finally {
    await source.close();
  }
});
afterAll(async () => {
  await rm(sourceDir, { recursive: true, force: true });
});

describe('pkg-registry migrate: wrong usage', () => {
  it.each([
    [['--from', 'x'], 'both --from and --to are required'],
    [['--from', 'x', '--to', 'x'], 'same database'],
    [['--from', 'x', '--to', 'postgres://127.0.0.1/db'], '--to-storage'],
    [['--from', 'nowhere/at/all', '--to', 'y'], 'no registry database'],
    [['--from', 'x', '--to', 'y', '--colour'], "Unknown option '--colour'"],
  ])('%j answers exit 2 with a message', async (args, message) => {
    const result = await runMigrate(args);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
    expect(result.stderr).toContain('Usage: pkg-registry migrate');
  });

  it('prints its help with --help', async () => {
    const result = await runMigrate(['--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('--from-storage');
  });
});

describe('pkg-registry migrate between two embedded registries', () => {
  it('copies everything, re-runs without copying again, and stops on a corrupt tarball', async () => {
    const targetDir = await mkdtemp(path.join(tmpdir(), 'pkg-migrate-dst-'));
    try {
      const first = await runMigrate(['--from', sourceDir, '--to', targetDir]);
      expect(first.stderr).toBe('');
      expect(first.code).toBe(0);
      expect(first.stdout).toContain(
        '1 tenants, 4 users, 4 tokens, 4 signing keys, 4 teams, 4 advisories, 4 audit entries, 2 webhooks (4 deliveries), ' +
          '5 packages, 3 download counts; 6 tarballs copied, 0 already there',
      );
      expect(first.stdout).toContain('tenant acme: 2 packages, 2 advisories, 2 audit entries, 1 webhooks');
      const target = await openEmbedded(targetDir);
      expect(await snapshot(target)).toEqual(expected);
      await target.close();

      const again = await runMigrate(['--from', sourceDir, '--to', targetDir]);
      expect(again.code).toBe(0);
      expect(again.stdout).toContain('0 tarballs copied, 6 already there');
      await expectTwoPassesAgree(targetDir);

      // A tarball whose bytes no longer match its integrity is reported, and its package left out.
      const corruptDir = await mkdtemp(path.join(tmpdir(), 'pkg-migrate-dst2-'));
      const source = new FsBlobStore(path.join(sourceDir, 'tarballs'));
      const key = blobKeyFor('acme', 'com.acme.other', '0.1.0');
      const original = await readFileOf(source, key);
      await writeFile(source.filePath(key), Buffer.concat([original, Buffer.from('x')]));
      try {
        const broken = await runMigrate(['--from', sourceDir, '--to', corruptDir]);
        expect(broken.code).toBe(1);
        expect(broken.stderr).toContain('acme/com.acme.other@0.1.0: the source tarball does not match its integrity');
        const partial = await openEmbedded(corruptDir);
        expect(await partial.packages.package('acme', 'com.acme.other').read()).toBeUndefined();
        expect(await partial.packages.listPackageNames('acme')).toEqual(['com.acme.tool']);
        await partial.close();
      } finally {
        await writeFile(source.filePath(key), original);
        await rm(corruptDir, { recursive: true, force: true });
      }
    } finally {
      await rm(targetDir, { recursive: true, force: true });
    }
  });
});

describe.skipIf(!testPostgresUrl)('pkg-registry migrate to PostgreSQL + S3 and back', () => {
  let postgres: TestPostgres;
  let s3: TestS3;
  beforeAll(async () => {
    postgres = freshPostgresSchema();
    s3 = await startS3Server();
  });
  afterAll(async () => {
    await s3.close();
    await postgres.drop();
  });

  it('copies the embedded registry to PostgreSQL + S3, and from there to a new embedded one, losing nothing', async () => {
    const out = await runMigrate(['--from', sourceDir, '--to', postgres.url, '--to-storage', s3.url]);
    expect(out.stderr).toBe('');
    expect(out.code).toBe(0);
    expect(out.stdout).not.toContain(postgres.url.split('?')[0]!.replace('postgres@', ''));
    const scaled = await createStorage(loadConfig({ flags: { database: postgres.url, storage: s3.url }, env: {} }));
    expect(await snapshot(scaled)).toEqual(expected);
    await scaled.close();

    const rerun = await runMigrate(['--from', sourceDir, '--to', postgres.url, '--to-storage', s3.url]);
    expect(rerun.code).toBe(0);
    expect(rerun.stdout).toContain('0 tarballs copied, 6 already there');

    const backDir = await mkdtemp(path.join(tmpdir(), 'pkg-migrate-back-'));
    try {
      const back = await runMigrate(['--from', postgres.url, '--from-storage', s3.url, '--to', backDir]);
      expect(back.code).toBe(0);
      const embedded = await openEmbedded(backDir);
      expect(await snapshot(embedded)).toEqual(expected);
      await embedded.close();
    } finally {
      await rm(backDir, { recursive: true, force: true });
    }
  });
});

/**
 * `live` copied while it still changes, then again: the second pass brings what changed in
 * between (a new audit entry, the deliveries sent meanwhile, which the copy must not send again),
 * and the copy's own later entries get ids after the copied ones.
 */
async function expectTwoPassesAgree(live: string): Promise<void> {
  const copyDir = await mkdtemp(path.join(tmpdir(), 'pkg-migrate-passes-'));
  try {
    expect((await runMigrate(['--from', live, '--to', copyDir])).code).toBe(0);
    const source = await openEmbedded(live);
    const { id: _, ...newest } = (await source.audit.query('', { limit: 1 }))[0]!;
    await source.audit.append('', { ...newest, at: '2025-03-01T00:00:00.000Z', action: 'dist-tag.set' }, []);
    await settleDeliveries(source, '2025-01-04T00:10:00.000Z', () => true);
    const changed = await snapshot(source);
    await source.close();
    expect((await runMigrate(['--from', live, '--to', copyDir])).code).toBe(0);
    const copy = await openEmbedded(copyDir);
    try {
      expect(await snapshot(copy)).toEqual(changed);
      expect(await copy.webhooks.claimDeliveries('2025-01-05T00:00:00.000Z', 60_000, 100)).toEqual([]);
      await copy.audit.append('', { ...newest, at: '2025-04-01T00:00:00.000Z' }, []);
      const [late, ...copied] = await copy.audit.query('', { limit: 10 });
      expect(late!.at).toBe('2025-04-01T00:00:00.000Z');
      expect(Number(late!.id)).toBeGreaterThan(Math.max(...copied.map((entry) => Number(entry.id))));
    } finally {
      await copy.close();
    }
  } finally {
    await rm(copyDir, { recursive: true, force: true });
  }
}

async function readFileOf(store: FsBlobStore, key: string): Promise<Buffer> {
  const blob = await store.get(key);
  const chunks: Buffer[] = [];
  for await (const chunk of blob!.stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

describe('pkg-registry migrate of a package cached from an uplink', () => {
  it('copies the document and the tarballs downloaded so far; the others stay to be fetched on demand', async () => {
    const fromDir = await mkdtemp(path.join(tmpdir(), 'pkg-migrate-uplink-src-'));
    const toDir = await mkdtemp(path.join(tmpdir(), 'pkg-migrate-uplink-dst-'));
    try {
      const name = 'com.upstream.cached';
      const source = await openEmbedded(fromDir);
      const pkg = stored(name, ['1.0.0', '1.1.0']);
      for (const version of ['1.0.0', '1.1.0']) {
        const tarball = buildTarball({ name, version });
        // As the uplink stores it: the upstream's absolute URL, only 1.0.0 downloaded.
        pkg.document.versions[version]!.dist = {
          tarball: `https://upstream.example/${name}/-/${name}-${version}.tgz`,
          integrity: sha512Integrity(tarball),
          shasum: sha1Hex(tarball),
        };
        if (version === '1.0.0') await source.blobs.put(blobKeyFor('', name, version), tarball);
      }
      await source.packages.package('', name).update(() => ({ next: pkg, result: null }));
      await source.close();

      const copied = await runMigrate(['--from', fromDir, '--to', toDir]);
      expect(copied.stderr).toBe('');
      expect(copied.code).toBe(0);
      expect(copied.stdout).toContain('1 tarballs copied');
      const target = await openEmbedded(toDir);
      expect(Object.keys((await target.packages.package('', name).read())!.document.versions)).toEqual(['1.0.0', '1.1.0']);
      expect(await target.blobs.stat(blobKeyFor('', name, '1.0.0'))).toBeDefined();
      expect(await target.blobs.stat(blobKeyFor('', name, '1.1.0'))).toBeUndefined();
      await target.close();
    } finally {
      await rm(fromDir, { recursive: true, force: true });
      await rm(toDir, { recursive: true, force: true });
    }
  });
});
