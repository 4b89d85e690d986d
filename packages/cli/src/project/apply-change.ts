/**
 * Applying a planned manifest change: backup first, then an atomic write that is read back and
 * validated; on any failure the backup is put back and the error says so.
 */
import path from 'node:path';
import type { FileSystem } from '../deps.js';
import type { ManifestChange } from '../engines/index.js';
import { ClientError } from '../errors/client-errors.js';
import type { CommandContext } from '../context.js';
import { createBackup, pruneBackups, restoreBackup } from '../files/backup.js';
import type { OpenProject } from './open-project.js';

export interface ApplyOptions {
  fs: FileSystem;
  /** Where backup folders go (the system's temp directory). */
  backupRoot: string;
  now: Date;
  /** How many backup folders to keep (the newest); 0 keeps every one. */
  backupsKept: number;
}

/** The apply options of a command: the temp folder, now, and the `backupsKept` setting. */
export async function applyOptionsOf(ctx: CommandContext): Promise<ApplyOptions> {
  const config = await ctx.config();
  return { fs: ctx.deps.fs, backupRoot: ctx.deps.tmpdir, now: ctx.deps.now(), backupsKept: Number(config.get('backupsKept')) };
}

export interface ApplyResult {
  /** False when the change left the text as it was: nothing was written, no backup taken. */
  changed: boolean;
  backupPath: string | null;
}

export async function applyManifestChange(
  open: OpenProject,
  change: ManifestChange,
  options: ApplyOptions,
): Promise<ApplyResult> {
  const { engine, project, manifest } = open;
  const text = engine.editManifest(manifest, change);
  if (text === manifest.text) return { changed: false, backupPath: null };
  const relative = engine.manifestRelativePath;
  await open.fs.ensureWritable([path.join(project, relative)]);
  const backup = await createBackup(options.fs, options.backupRoot, options.now, project, [relative]);
  try {
    const written = await engine.writeManifest(project, text, open.fs);
    for (const [name, version] of Object.entries(change.set ?? {})) {
      if (written.manifest.dependencies[name] !== version) throw new Error(`${name} did not read back as ${version}`);
    }
    for (const name of change.remove ?? []) {
      if (name in written.manifest.dependencies) throw new Error(`${name} is still listed`);
    }
  } catch (err) {
    const cause = err instanceof Error ? err.message : String(err);
    try {
      await restoreBackup(options.fs, backup, project);
    } catch (restoreErr) {
      throw new ClientError(
        'RESTORE_FAILED',
        {
          manifest: relative,
          reason: cause,
          restoreReason: (restoreErr as Error).message,
          backup: path.join(backup.dir, relative),
          target: path.join(project, relative),
        },
        { cause: err },
      );
    }
    throw new ClientError('APPLY_FAILED', { manifest: relative, reason: cause, backup: backup.dir }, { cause: err });
  }
  await pruneBackups(options.fs, options.backupRoot, options.backupsKept, project);
  return { changed: true, backupPath: backup.dir };
}
