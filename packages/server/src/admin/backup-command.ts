import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../config/config.js';
import { AdminUsageError } from '../services/tenant-admin.js';
import { STORAGE_OPTIONS, openStorage, runAdmin, type AdminIo } from './admin-io.js';
import { backupRegistry } from './backup.js';
import { restoreRegistry } from './restore.js';
import { verifyRegistry } from './verify.js';

export const BACKUP_USAGE = `Usage: pkg-registry backup <destination> [--data <dir> | --config <file>]
       pkg-registry restore <backup> [--data <dir> | --config <file>]
       pkg-registry verify [--data <dir> | --config <file>]

backup    A consistent copy of the registry, taken while it serves and publishes go on, into
          <destination> (a new or empty directory): registry.db, tarballs/ and backup.json.
          Embedded default: SQLite's online backup; PostgreSQL: one REPEATABLE READ snapshot.
          The tarballs of every version in the copy are copied after it, each verified.
restore   Copies a backup into an empty registry (a new data directory, or an empty PostgreSQL
          schema and tarball storage named by --config), then verifies it.
verify    Checks that every version of every package has its tarball, matching its integrity.

Options:
  --data <dir>       Data directory of the registry (as for serve)
  --config <file>    Config file of the registry (as for serve; PKG_REGISTRY_* are read too)
  --json             Print the result as JSON

Exit codes: 0 done, 1 problems found (listed), 2 wrong usage or configuration.
`;

const OPTIONS = { ...STORAGE_OPTIONS, json: { type: 'boolean' } } as const;

function parse(argv: string[], positionals: number) {
  const parsed = parseArgs({ args: argv, options: OPTIONS, strict: true, allowPositionals: true });
  if (parsed.positionals.length > positionals)
    throw new AdminUsageError(`unexpected argument '${parsed.positionals[positionals]}'`);
  if (parsed.positionals.length < positionals) throw new AdminUsageError('a directory is required');
  return parsed;
}

function configOf(values: { data?: string | undefined; config?: string | undefined }, io: AdminIo) {
  return loadConfig({ flags: values.data !== undefined ? { data: values.data } : {}, configFile: values.config, env: io.env });
}

/** Prints the problems found and returns the exit code they mean. */
function finish(io: AdminIo, json: boolean, result: object, problems: string[], summary: string): number {
  if (json) io.stdout.write(`${JSON.stringify({ ...result, problems })}\n`);
  else {
    io.stdout.write(`${summary}\n`);
    if (problems.length > 0) {
      io.stderr.write(`Error: ${problems.length} problem(s):\n`);
      for (const problem of problems) io.stderr.write(`  ${problem}\n`);
    }
  }
  return problems.length > 0 ? 1 : 0;
}

export function backupCommand(argv: string[], io: AdminIo): Promise<number> {
  return runAdmin(io, 'backup', async () => {
    const { values, positionals } = parse(argv, 1);
    const destination = path.resolve(positionals[0]!);
    const progress = (line: string) => (values.json ? undefined : io.stdout.write(`  ${line}\n`));
    const { manifest, problems } = await backupRegistry(configOf(values, io), destination, progress);
    return finish(
      io,
      values.json === true,
      { destination, ...manifest },
      problems,
      `Backed up ${manifest.packages} packages in ${manifest.tenants + 1} registries, ${manifest.tarballs} tarballs (all verified) to ${destination}`,
    );
  });
}

export function restoreCommand(argv: string[], io: AdminIo): Promise<number> {
  return runAdmin(io, 'backup', async () => {
    const { values, positionals } = parse(argv, 1);
    const backup = path.resolve(positionals[0]!);
    const progress = (line: string) => (values.json ? undefined : io.stdout.write(`  ${line}\n`));
    const { manifest, copy, verify } = await restoreRegistry(backup, configOf(values, io), progress);
    return finish(
      io,
      values.json === true,
      { backup: manifest, copied: { ...copy, problems: undefined }, verified: { ...verify, problems: undefined } },
      [...copy.problems, ...verify.problems],
      `Restored the backup of ${manifest.createdAt}: ${copy.tenants} tenants, ${copy.users} users, ${copy.tokens} tokens, ` +
        `${copy.teams} teams, ${copy.advisories} advisories, ${copy.auditEntries} audit entries, ` +
        `${copy.webhooks} webhooks (${copy.webhookDeliveries} deliveries), ` +
        `${copy.packages} packages; verified ${verify.tarballs} tarballs`,
    );
  });
}

export function verifyCommand(argv: string[], io: AdminIo): Promise<number> {
  return runAdmin(io, 'backup', async () => {
    const { values } = parse(argv, 0);
    const { storage } = await openStorage(values, io);
    try {
      const progress = (line: string) => (values.json ? undefined : io.stdout.write(`  ${line}\n`));
      const report = await verifyRegistry(storage, progress);
      return finish(
        io,
        values.json === true,
        { ...report, problems: undefined },
        report.problems,
        `Verified ${report.tarballs} tarballs of ${report.packages} packages` +
          (report.notYetFetched > 0 ? ` (${report.notYetFetched} uplink tarballs not fetched yet)` : ''),
      );
    } finally {
      await storage.close();
    }
  });
}
