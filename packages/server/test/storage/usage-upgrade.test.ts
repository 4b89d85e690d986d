/**
 * A registry written by the release before storage usage: its database has no usage tables.
 * Upgraded, the migration lists every version of its own packages (not the ones cached from an
 * uplink) without a size, and the background job measures their tarballs: quotas and metrics
 * then count what was published before.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { buildStoredPackage, freshPostgresSchema, testPostgresUrl } from '@pkg/testkit';
import { loadConfig } from '../../src/config/config.js';
import { measureUnmeasuredVersions } from '../../src/services/usage-backfill.js';
import { blobKeyFor } from '../../src/storage/blob-keys.js';
import { createStorage } from '../../src/storage/create-storage.js';
import { inPostgresSchema } from './previous-release.js';

const DROP = 'DROP TABLE storage_usage; DROP TABLE storage_collects';
const FORGET = "DELETE FROM schema_migrations WHERE scope = 'storage-usage'";

/**
 * Writes two tenants' packages with tarballs (and one package cached from an uplink), then lets
 * `downgrade` take the database back to the previous release's schema; answers the bytes written.
 */
async function writtenByThePreviousRelease(
  flags: Record<string, string>,
  downgrade: () => Promise<void>,
): Promise<Record<string, number>> {
  const before = await createStorage(loadConfig({ flags, env: {} }));
  const bytes: Record<string, number> = { '': 0, acme: 0 };
  try {
    await before.registry.tenants.create({
      name: 'acme',
      incarnation: 'first',
      createdAt: '2025-01-01T00:00:00.000Z',
      settings: {},
    });
    for (const tenant of ['', 'acme']) {
      for (const [name, versions] of [
        ['com.acme.old', ['1.0.0', '1.1.0']],
        ['com.acme.other', ['2.0.0']],
      ] as const) {
        await before.packages
          .package(tenant, name)
          .update(() => ({ next: buildStoredPackage(name, { versions: [...versions] }), result: null }));
        for (const version of versions) {
          const data = Buffer.alloc(100 + version.length * 10 + name.length, 7);
          await before.blobs.put(blobKeyFor(tenant, name, version), data);
          bytes[tenant]! += data.length;
        }
      }
    }
    // Cached from an uplink: the registry's own usage leaves it out.
    await before.uplinkCache.put('', 'com.upstream.cached', {
      uplink: 'openupm',
      etag: null,
      fetchedAt: '2025-01-01T00:00:00.000Z',
    });
    await before.packages
      .package('', 'com.upstream.cached')
      .update(() => ({ next: buildStoredPackage('com.upstream.cached'), result: null }));
  } finally {
    await before.close();
  }
  await downgrade();
  return bytes;
}

async function afterUpgrade(flags: Record<string, string>, bytes: Record<string, number>): Promise<void> {
  const after = await createStorage(loadConfig({ flags, env: {} }));
  try {
    // Counted as packages at once; their bytes once measured.
    expect(await after.usage.usage('acme')).toEqual({ bytes: 0, files: 0, packages: 2 });
    expect(await after.usage.usage('')).toEqual({ bytes: 0, files: 0, packages: 2 });
    expect(await measureUnmeasuredVersions(after)).toBe(6);
    expect(await after.usage.usage('acme')).toEqual({ bytes: bytes.acme, files: 3, packages: 2 });
    expect(await after.usage.usage('')).toEqual({ bytes: bytes[''], files: 3, packages: 2 });
    // Once is enough: a second run (another node, the next start) finds nothing.
    expect(await measureUnmeasuredVersions(after)).toBe(0);
    expect((await after.packages.package('', 'com.acme.old').read())!.document.versions['1.1.0']).toBeDefined();
  } finally {
    await after.close();
  }
}

describe('storage usage of a registry of the previous release', () => {
  it('SQLite: its versions are listed by the migration and measured once', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'pkg-usage-upgrade-'));
    try {
      const flags = { data: dataDir };
      const bytes = await writtenByThePreviousRelease(flags, async () => {
        const db = new Database(path.join(dataDir, 'registry.db'));
        db.exec(`${DROP}; ${FORGET}`);
        db.close();
      });
      await afterUpgrade(flags, bytes);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it.skipIf(!testPostgresUrl)('PostgreSQL: the same', async () => {
    const schema = freshPostgresSchema();
    const dataDir = await mkdtemp(path.join(tmpdir(), 'pkg-usage-upgrade-'));
    try {
      const flags = { data: dataDir, database: schema.url };
      const bytes = await writtenByThePreviousRelease(flags, () => inPostgresSchema(schema.schema, [DROP, FORGET]));
      await afterUpgrade(flags, bytes);
    } finally {
      await schema.drop();
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
