/**
 * A registry written by the release before signatures: its database has no signing tables and
 * its versions no signatures. Upgraded, it migrates, makes a key, and the one-time job signs
 * every version, which then verifies with the key the keys endpoint serves.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildStoredPackage } from '@pkg/testkit';
import { loadConfig } from '../../src/config/config.js';
import { RegistrySignatures, verifyRegistrySignature } from '../../src/services/registry-signatures.js';
import { signVersionsPublishedBefore } from '../../src/services/signature-backfill.js';
import { createStorage } from '../../src/storage/create-storage.js';

let dataDir: string;
beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), 'pkg-signatures-upgrade-'));
});
afterAll(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

it('an embedded registry of the previous release gets its tables, a key, and signatures on every version', async () => {
  const config = loadConfig({ flags: { data: dataDir }, env: {} });
  const before = await createStorage(config);
  await before.registry.tenants.create({
    name: 'acme',
    incarnation: 'first',
    createdAt: '2025-01-01T00:00:00.000Z',
    settings: {},
  });
  for (const tenant of ['', 'acme']) {
    const pkg = buildStoredPackage('com.acme.old', { versions: ['1.0.0', '1.1.0'] });
    await before.packages.package(tenant, 'com.acme.old').update(() => ({ next: pkg, result: null }));
  }
  await before.close();
  // As the previous release left the database: no signing tables, no record of their migration.
  const db = new Database(config.database.slice('sqlite:'.length));
  db.exec("DROP TABLE signing_keys; DROP TABLE signing_backfills; DELETE FROM schema_migrations WHERE scope = 'signing-keys'");
  db.close();

  const after = await createStorage(config);
  try {
    const deps = { ...after, now: () => new Date() };
    expect(await signVersionsPublishedBefore(deps)).toBe(4);
    for (const tenant of ['', 'acme']) {
      const keys = await new RegistrySignatures(deps).publicKeys(tenant);
      expect(keys).toHaveLength(1);
      const doc = (await after.packages.package(tenant, 'com.acme.old').read())!.document;
      for (const [version, record] of Object.entries(doc.versions)) {
        const [signature] = record.dist.signatures as { keyid: string; sig: string }[];
        expect(verifyRegistrySignature(keys, 'com.acme.old', version, record.dist.integrity, signature!)).toBe(true);
      }
    }
    expect(await signVersionsPublishedBefore(deps)).toBe(0);
  } finally {
    await after.close();
  }
});
