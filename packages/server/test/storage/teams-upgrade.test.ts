/**
 * A registry written by the release before teams: its database has no team tables. Upgraded, it
 * migrates them in, its packages and tenants are as they were, and teams work on it.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildStoredPackage } from '@pkg/testkit';
import { loadConfig } from '../../src/config/config.js';
import { createStorage } from '../../src/storage/create-storage.js';

let dataDir: string;
beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), 'pkg-teams-upgrade-'));
});
afterAll(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

it('an embedded registry of the previous release gets the team tables and keeps its packages', async () => {
  const config = loadConfig({ flags: { data: dataDir }, env: {} });
  const before = await createStorage(config);
  await before.registry.tenants.create({
    name: 'acme',
    incarnation: 'first',
    createdAt: '2025-01-01T00:00:00.000Z',
    settings: {},
  });
  const pkg = buildStoredPackage('com.acme.old', { versions: ['1.0.0'] });
  await before.packages.package('acme', 'com.acme.old').update(() => ({ next: pkg, result: null }));
  await before.close();
  // As the previous release left the database: no team tables, no record of their migration.
  const db = new Database(config.database.slice('sqlite:'.length));
  db.exec(
    "DROP TABLE team_members; DROP TABLE team_namespaces; DROP TABLE teams; DELETE FROM schema_migrations WHERE scope = 'teams'",
  );
  db.close();

  const after = await createStorage(config);
  try {
    expect((await after.packages.package('acme', 'com.acme.old').read())?.document.versions).toHaveProperty('1.0.0');
    expect(await after.teams.list('acme')).toEqual([]);
    expect(await after.teams.create('acme', 'studio', '2025-01-02T00:00:00.000Z', ['ada'])).toBe(true);
    expect(await after.teams.claim('acme', 'studio', 'com.acme.*')).toEqual({ claimed: true });
    expect(await after.teams.ownerOf('acme', 'com.acme.new')).toEqual({
      team: 'studio',
      namespace: 'com.acme.*',
      members: ['ada'],
    });
  } finally {
    await after.close();
  }
});
