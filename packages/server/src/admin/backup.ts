import { existsSync, readdirSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ConfigError, loadConfig, type Config } from '../config/config.js';
import { registryRelease } from '../release.js';
import {
  createStorage,
  openBlobStore,
  openPostgresSnapshot,
  redactUrlCredentials,
  type Storage,
} from '../storage/create-storage.js';
import { GLOBAL_TENANT, type BlobStore, type TenantId } from '../storage/ports.js';
import { copyPackageBlobs, copyRegistry, type CopyReport, type RegistryStorage } from './registry-copy.js';

/** Written beside the copy: what it is and where it came from (never a password). */
export const BACKUP_MANIFEST = 'backup.json';

export interface BackupManifest {
  format: 'pkg-registry-backup';
  formatVersion: 1;
  release: string;
  createdAt: string;
  source: string;
  method: 'sqlite-online-backup' | 'postgres-repeatable-read';
  tenants: number;
  packages: number;
  tarballs: number;
}

export interface BackupReport {
  manifest: BackupManifest;
  problems: string[];
}

/**
 * `pkg-registry backup <destination>`: a consistent copy of a registry while it serves and
 * takes publishes, written as an embedded registry (destination/registry.db and
 * destination/tarballs/, a data directory `serve --data` could run, and what `restore` reads).
 *
 * The metadata is copied first, as one snapshot: SQLite's online backup API (better-sqlite3's
 * `db.backup()`), or on PostgreSQL one REPEATABLE READ, READ ONLY transaction every read goes
 * through. The tarballs of every version in that snapshot are copied after it and checked
 * against their integrity: tarballs are written before the metadata that references them and
 * never change, so each is there. A version unpublished after the snapshot may have lost its
 * tarball meanwhile: that is reported (exit 1), and another run takes a newer snapshot.
 */
export async function backupRegistry(
  source: Config,
  destination: string,
  onProgress: (line: string) => void,
): Promise<BackupReport> {
  assertEmptyDestination(destination);
  // It holds password hashes and the private signing keys: readable by its owner only.
  await mkdir(destination, { recursive: true, mode: 0o700 });
  const target = loadConfig({ flags: { data: destination }, env: {} });
  if (source.database.startsWith('sqlite:')) return backupSqlite(source, target, onProgress);
  return backupPostgres(source, target, onProgress);
}

function assertEmptyDestination(destination: string): void {
  if (existsSync(destination) && readdirSync(destination).length > 0) {
    throw new ConfigError(`the backup destination ${destination} is not empty`, 'give a new or empty directory');
  }
}

async function backupSqlite(source: Config, target: Config, onProgress: (line: string) => void): Promise<BackupReport> {
  const file = source.database.slice('sqlite:'.length);
  if (!existsSync(file)) throw new ConfigError(`there is no registry database at ${file} (check --data or --config)`);
  const { default: Database } = await import('better-sqlite3');
  const live = new Database(file, { fileMustExist: true });
  try {
    live.pragma('busy_timeout = 5000');
    // After the first step, the rest in one: a step sees one snapshot, so publishes committed
    // meanwhile cannot make the copy start over (as they could between small steps).
    await live.backup(target.database.slice('sqlite:'.length), { progress: () => 1 << 30 });
  } finally {
    live.close();
  }
  onProgress('database copied (SQLite online backup)');
  const blobs = await openBlobStore(source);
  const copy = await createStorage(target);
  try {
    return await copyBlobsOfSnapshot(blobs, copy, target.data, source, onProgress);
  } finally {
    await copy.close();
    await blobs.close();
  }
}

async function backupPostgres(source: Config, target: Config, onProgress: (line: string) => void): Promise<BackupReport> {
  // This is the moment the backup shows.
  const snapshot = await openPostgresSnapshot(source);
  let blobs: BlobStore | undefined;
  let copy: Storage | undefined;
  try {
    blobs = await openBlobStore(source);
    copy = await createStorage(target);
    const from: RegistryStorage = { ...snapshot, blobs, search: copy.search };
    const report: CopyReport = await copyRegistry(from, copy, onProgress);
    if (!snapshot.stillConsistent()) report.problems.push('the connection holding the snapshot was lost: run the backup again');
    const manifest = manifestOf(source, 'postgres-repeatable-read', report.tenants, report.packages, report.tarballsCopied);
    await writeManifest(target.data, manifest);
    return { manifest, problems: report.problems };
  } finally {
    await copy?.close();
    await blobs?.close();
    await snapshot.close();
  }
}

/** Every version's tarball (and provenance bundle) of the copied database, from the live store. */
async function copyBlobsOfSnapshot(
  liveBlobs: BlobStore,
  copy: Storage,
  directory: string,
  source: Config,
  onProgress: (line: string) => void,
): Promise<BackupReport> {
  const report = { tarballsCopied: 0, tarballsPresent: 0, problems: [] as string[] };
  const tenants: TenantId[] = [GLOBAL_TENANT, ...(await copy.registry.tenants.list()).map((tenant) => tenant.name)];
  let packages = 0;
  for (const tenant of tenants) {
    const names = await copy.packages.listPackageNames(tenant, { includeUnpublished: true });
    for (const name of names) {
      const pkg = await copy.packages.package(tenant, name).read();
      if (!pkg) continue;
      await copyPackageBlobs(liveBlobs, copy.blobs, tenant, name, pkg, report);
      packages++;
    }
    onProgress(`${tenant === GLOBAL_TENANT ? 'global registry' : `tenant ${tenant}`}: ${names.length} packages`);
  }
  const manifest = manifestOf(source, 'sqlite-online-backup', tenants.length - 1, packages, report.tarballsCopied);
  await writeManifest(directory, manifest);
  return { manifest, problems: report.problems };
}

function manifestOf(
  source: Config,
  method: BackupManifest['method'],
  tenants: number,
  packages: number,
  tarballs: number,
): BackupManifest {
  return {
    format: 'pkg-registry-backup',
    formatVersion: 1,
    release: registryRelease(),
    createdAt: new Date().toISOString(),
    source: `${redactUrlCredentials(source.database)} + ${redactUrlCredentials(source.storage)}`,
    method,
    tenants,
    packages,
    tarballs,
  };
}

async function writeManifest(directory: string, manifest: BackupManifest): Promise<void> {
  await writeFile(path.join(directory, BACKUP_MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`);
}
