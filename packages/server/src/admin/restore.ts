import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { ConfigError, loadConfig, type Config } from '../config/config.js';
import { createStorage, type Storage } from '../storage/create-storage.js';
import { GLOBAL_TENANT } from '../storage/ports.js';
import { BACKUP_MANIFEST, type BackupManifest } from './backup.js';
import { copyRegistry, type CopyReport } from './registry-copy.js';
import { verifyRegistry, type VerifyReport } from './verify.js';

export interface RestoreReport {
  manifest: BackupManifest;
  copy: CopyReport;
  verify: VerifyReport;
}

/** What a backup directory must hold: its manifest, its database and its tarballs. */
export function readBackupManifest(backup: string): BackupManifest {
  const file = path.join(backup, BACKUP_MANIFEST);
  if (!existsSync(file) || !existsSync(path.join(backup, 'registry.db'))) {
    throw new ConfigError(
      `${backup} is not a pkg-registry backup (no ${BACKUP_MANIFEST} and registry.db)`,
      "give the directory 'pkg-registry backup' wrote",
    );
  }
  const manifest = JSON.parse(readFileSync(file, 'utf8')) as BackupManifest;
  if (manifest.format !== 'pkg-registry-backup' || manifest.formatVersion !== 1) {
    throw new ConfigError(`${file} is not a backup manifest this release reads`);
  }
  return manifest;
}

/**
 * Refuses a target that holds anything: restoring merges nothing. An embedded target is a
 * database file that does not exist yet and an empty tarball directory; a PostgreSQL schema or
 * an S3 bucket must hold no tenant, user, package or tarball.
 */
export function assertEmptyFiles(target: Config): void {
  if (target.database.startsWith('sqlite:')) {
    const file = target.database.slice('sqlite:'.length);
    if (existsSync(file))
      throw new ConfigError(`the restore target already has a database: ${file}`, 'restore into a new data directory');
  }
  if (!target.storage.startsWith('s3://') && existsSync(target.storage)) {
    const entries = readdirSync(target.storage).filter((entry) => entry !== '.incoming');
    if (entries.length > 0) throw new ConfigError(`the restore target's tarball directory ${target.storage} is not empty`);
  }
}

async function assertEmptyStorage(storage: Storage): Promise<void> {
  const occupied =
    (await storage.registry.tenants.list()).length > 0 ||
    (await storage.registry.users.list(GLOBAL_TENANT)).length > 0 ||
    (await storage.packages.listPackageNames(GLOBAL_TENANT, { includeUnpublished: true })).length > 0;
  let blobs = false;
  if (storage.blobs.listKeyGroups)
    for await (const _ of storage.blobs.listKeyGroups()) {
      blobs = true;
      break;
    }
  if (occupied || blobs) {
    throw new ConfigError(
      `the restore target is not empty (${occupied ? 'it has tenants, users or packages' : 'its tarball storage holds files'})`,
      'restore into an empty database (a new PostgreSQL schema) and empty tarball storage',
    );
  }
}

/**
 * `pkg-registry restore <backup>`: copies a backup into an empty registry (a data directory, or
 * PostgreSQL + S3), each tarball checked on the way, then verifies the result as
 * `pkg-registry verify` does.
 */
export async function restoreRegistry(
  backup: string,
  target: Config,
  onProgress: (line: string) => void,
): Promise<RestoreReport> {
  const manifest = readBackupManifest(backup);
  assertEmptyFiles(target);
  const source = await createStorage(loadConfig({ flags: { data: backup }, env: {} }));
  let destination: Storage | undefined;
  try {
    destination = await createStorage(target);
    await assertEmptyStorage(destination);
    const copy = await copyRegistry(source, destination, onProgress);
    await destination.database.afterBulkImport?.();
    const verify = await verifyRegistry(destination);
    return { manifest, copy, verify };
  } finally {
    await destination?.close();
    await source.close();
  }
}
