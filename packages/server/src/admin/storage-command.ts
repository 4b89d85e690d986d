import { parseArgs } from 'node:util';
import { AdminUsageError } from '../services/tenant-admin.js';
import { collectOrphanBlobs } from '../storage/create-storage.js';
import { GLOBAL_TENANT } from '../storage/ports.js';
import { STORAGE_OPTIONS, formatTable, openStorage, runAdmin, type AdminIo } from './admin-io.js';
import { storageReport } from './storage-report.js';
import { RetentionService, type RetentionRemoval } from '../services/retention.js';
import { AuditTrail } from '../services/audit-trail.js';
import { recordRetentionRemovals } from '../services/retention-changes.js';
import { operatorName } from './operator-changes.js';

/** A publish writes its tarball seconds before it commits: younger unreferenced blobs are left alone. */
const MIN_GRACE_SECONDS = 60;
const DEFAULT_GRACE_SECONDS = 3600;

export const STORAGE_USAGE = `Usage: pkg-registry storage [report] [options]
       pkg-registry storage collect [--older-than <seconds>] [options]
       pkg-registry storage retain [--keep-prereleases <n>] [--prerelease-max-age <days>] [--dry-run] [options]

Commands:
  report       Bytes and counts per tenant and per package, unreferenced (orphan) tarballs, and
               each tenant's quotas with the usage they are checked against (the default command)
      --tenant <name>       One tenant only (the global registry: --tenant '')
      --top <n>             Packages listed per tenant, largest first (default 10; 0: all)
  collect      Remove tarballs no version references (left by an interrupted publish), on the
               file system or S3, also while the registry serves and publishes go on: only those
               older than --older-than seconds (default ${DEFAULT_GRACE_SECONDS}, at least ${MIN_GRACE_SECONDS}) are removed,
               so a publish in flight, whose tarball is written just before it commits, keeps it;
               also the temporary files (file system) and incomplete multipart uploads (S3) of
               interrupted uploads older than that
  retain       Remove the pre-releases the rules no longer keep, in every registry (or --tenant):
               beyond the newest <n> of each package, or published more than <days> ago; never
               a release, a version a dist-tag names, or a package cached from an uplink
      --dry-run             List what would be removed, change nothing

Options:
  --data <dir>       Data directory of the registry (as for serve)
  --config <file>    Config file of the registry (as for serve)
  --json             Print the result as JSON
`;

const OPTIONS = {
  ...STORAGE_OPTIONS,
  json: { type: 'boolean' },
  tenant: { type: 'string' },
  top: { type: 'string' },
  'older-than': { type: 'string' },
  'keep-prereleases': { type: 'string' },
  'prerelease-max-age': { type: 'string' },
  'dry-run': { type: 'boolean' },
} as const;

function wholeNumber(value: string | undefined, flag: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value)) throw new AdminUsageError(`${flag} must be a whole number, got '${value}'`);
  return Number(value);
}

export function storageCommand(argv: string[], io: AdminIo): Promise<number> {
  return runAdmin(io, 'storage', async () => {
    const { values, positionals } = parseArgs({ args: argv, options: OPTIONS, strict: true, allowPositionals: true });
    const [action = 'report', ...extra] = positionals;
    if (extra.length > 0) throw new AdminUsageError(`unexpected argument '${extra[0]}'`);
    if (action !== 'report' && action !== 'collect' && action !== 'retain')
      throw new AdminUsageError(`unknown storage command '${action}'`);
    const top = wholeNumber(values.top, '--top', 10);
    const grace = wholeNumber(values['older-than'], '--older-than', DEFAULT_GRACE_SECONDS);
    if (grace < MIN_GRACE_SECONDS) {
      throw new AdminUsageError(
        `--older-than must be at least ${MIN_GRACE_SECONDS}: a younger tarball may be a publish in flight`,
      );
    }
    const keep =
      values['keep-prereleases'] === undefined ? undefined : wholeNumber(values['keep-prereleases'], '--keep-prereleases', 0);
    const maxAge =
      values['prerelease-max-age'] === undefined
        ? undefined
        : wholeNumber(values['prerelease-max-age'], '--prerelease-max-age', 0);
    if (action === 'retain' && keep === undefined && maxAge === undefined) {
      throw new AdminUsageError('storage retain needs --keep-prereleases or --prerelease-max-age');
    }
    if (maxAge === 0) throw new AdminUsageError('--prerelease-max-age must be at least 1 day');
    const { storage, config } = await openStorage(values, io);
    try {
      if (action === 'retain') {
        const service = new RetentionService({ ...storage, now: () => new Date() });
        const rules = { keepPrereleases: keep, prereleaseMaxAgeDays: maxAge };
        const tenants =
          values.tenant !== undefined
            ? [values.tenant]
            : [GLOBAL_TENANT, ...(await storage.registry.tenants.list()).map((t) => t.name)];
        if (
          values.tenant !== undefined &&
          values.tenant !== GLOBAL_TENANT &&
          !(await storage.registry.tenants.get(values.tenant))
        ) {
          throw new AdminUsageError(`there is no tenant '${values.tenant}'`);
        }
        const removals: RetentionRemoval[] = [];
        for (const tenant of tenants) {
          if (values['dry-run']) removals.push(...(await service.plan(tenant, rules)));
          else {
            const removed = await service.apply(tenant, rules);
            await recordRetentionRemovals(new AuditTrail({ ...storage, now: () => new Date() }), removed, {
              via: 'cli',
              details: { operator: operatorName() },
            });
            removals.push(...removed);
          }
        }
        if (values.json) io.stdout.write(`${JSON.stringify({ dryRun: values['dry-run'] === true, removals })}\n`);
        else {
          for (const r of removals) {
            io.stdout.write(
              `${values['dry-run'] ? 'would remove' : 'removed'} ${r.tenant === GLOBAL_TENANT ? '' : `${r.tenant}/`}${r.name}@${r.version} (${r.reason})\n`,
            );
          }
          io.stdout.write(`${values['dry-run'] ? 'Would remove' : 'Removed'} ${removals.length} pre-releases\n`);
        }
        return 0;
      }
      if (action === 'collect') {
        const collected = await collectOrphanBlobs(storage, grace * 1000);
        const { orphans, temporaryFiles, incompleteUploads } = collected;
        await storage.usage.recordCollect({ at: new Date().toISOString(), ...collected });
        io.stdout.write(
          values.json
            ? `${JSON.stringify({ removed: orphans, temporaryFiles, incompleteUploads })}\n`
            : `Removed ${orphans} orphan files, ${temporaryFiles} temporary files and ${incompleteUploads} incomplete multipart uploads older than ${grace} s\n`,
        );
        return 0;
      }
      let report = await storageReport(storage, config);
      if (values.tenant !== undefined) {
        report = report.filter((entry) => entry.tenant === values.tenant);
        if (report.length === 0) throw new AdminUsageError(`there is no tenant '${values.tenant}'`);
      }
      if (values.json) {
        io.stdout.write(`${JSON.stringify(report)}\n`);
        return 0;
      }
      const rows = [['REGISTRY', 'PACKAGES', 'VERSIONS', 'FILES', 'BYTES', 'ORPHANS']];
      for (const entry of report) {
        rows.push([
          entry.tenant === GLOBAL_TENANT ? '(global)' : entry.tenant,
          String(entry.packages),
          String(entry.versions),
          String(entry.files),
          humanBytes(entry.bytes),
          entry.orphanFiles > 0 ? `${entry.orphanFiles} (${humanBytes(entry.orphanBytes)})` : '0',
        ]);
      }
      io.stdout.write(formatTable(rows));
      io.stdout.write('\nquotas (against the usage kept per version):\n');
      const quotaRows = [['REGISTRY', 'PACKAGES', 'PACKAGE QUOTA', 'BYTES', 'BYTE QUOTA']];
      for (const entry of report) {
        const { quota, usage } = entry;
        const from = (source: string) => (source === 'tenant' ? ' (own)' : '');
        quotaRows.push([
          entry.tenant === GLOBAL_TENANT ? '(global)' : entry.tenant,
          String(usage.packages),
          quota.packages === 0
            ? 'none'
            : `${quota.packages}${from(quota.packagesFrom)} (${percent(usage.packages, quota.packages)})`,
          humanBytes(usage.bytes),
          quota.bytes === 0
            ? 'none'
            : `${humanBytes(quota.bytes)}${from(quota.bytesFrom)} (${percent(usage.bytes, quota.bytes)})`,
        ]);
      }
      io.stdout.write(formatTable(quotaRows));
      const unmeasured = report.filter((entry) => entry.unmeasuredVersions > 0);
      for (const entry of unmeasured) {
        io.stdout.write(
          `${entry.tenant === GLOBAL_TENANT ? 'global registry' : `tenant ${entry.tenant}`}: ${entry.unmeasuredVersions} versions published before sizes were recorded are not counted yet (the server measures them once it listens)\n`,
        );
      }
      for (const entry of report) {
        const shown = top === 0 ? entry.byPackage : entry.byPackage.slice(0, top);
        if (shown.length === 0) continue;
        io.stdout.write(
          `\n${entry.tenant === GLOBAL_TENANT ? 'global registry' : `tenant ${entry.tenant}`}, largest packages:\n`,
        );
        io.stdout.write(
          formatTable([['PACKAGE', 'VERSIONS', 'BYTES'], ...shown.map((p) => [p.name, String(p.versions), humanBytes(p.bytes)])]),
        );
      }
      return 0;
    } finally {
      await storage.close();
    }
  });
}

function percent(used: number, quota: number): string {
  return `${Math.round((used / quota) * 100)}% used`;
}

function humanBytes(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${bytes} B` : `${value.toFixed(1)} ${units[unit]}`;
}
