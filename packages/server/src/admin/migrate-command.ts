import { existsSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig, type Config } from '../config/config.js';
import { createStorage, redactUrlCredentials, type Storage } from '../storage/create-storage.js';
import { copyRegistry } from './registry-copy.js';

export const MIGRATE_USAGE = `Usage: pkg-registry migrate --from <registry> --to <registry> [options]

Copies a whole registry (tenants, users, tokens, packages, tarballs, download counts) from one storage to
another, checking every tarball's integrity. Re-running it brings the target up to date.
Run it while no server writes to either side.

A <registry> is a data directory of the embedded default (SQLite + tarball files under it),
a sqlite:<file> database, or a postgres:// URL.

Options:
  --from <registry>          Where to copy from
  --from-storage <storage>   Tarballs of the source: a directory or s3://<bucket>?endpoint=…&region=…
                             (default for a data directory or sqlite: file: the tarballs/ beside it)
  --to <registry>            Where to copy to
  --to-storage <storage>     Tarballs of the target (same default)
`;

export interface CommandIo {
  stdout: { write(text: string): void };
  stderr: { write(text: string): void };
}

/** `pkg-registry migrate`: returns 0 when everything was copied, 1 on problems, 2 on wrong usage. */
export async function migrateCommand(argv: string[], io: CommandIo): Promise<number> {
  let from: Config;
  let to: Config;
  try {
    const { values } = parseArgs({
      args: argv,
      options: {
        from: { type: 'string' },
        'from-storage': { type: 'string' },
        to: { type: 'string' },
        'to-storage': { type: 'string' },
        help: { type: 'boolean' },
      },
      strict: true,
      allowPositionals: false,
    });
    if (values.help) {
      io.stdout.write(MIGRATE_USAGE);
      return 0;
    }
    if (!values.from || !values.to) throw new ConfigError('both --from and --to are required');
    from = sideConfig('--from', values.from, values['from-storage']);
    to = sideConfig('--to', values.to, values['to-storage']);
    if (from.database === to.database) throw new ConfigError('--from and --to name the same database');
    if (from.storage === to.storage) throw new ConfigError('--from and --to name the same tarball storage');
    if (from.database.startsWith('sqlite:') && !existsSync(from.database.slice('sqlite:'.length))) {
      throw new ConfigError(`--from: there is no registry database at ${from.database.slice('sqlite:'.length)}`);
    }
  } catch (err) {
    if (err instanceof ConfigError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      io.stderr.write(`Error: ${(err as Error).message}\n\n${MIGRATE_USAGE}`);
      return 2;
    }
    throw err;
  }

  let source: Storage | undefined;
  let target: Storage | undefined;
  try {
    source = await createStorage(from);
    target = await createStorage(to);
    io.stdout.write(`Copying ${describe(from)} to ${describe(to)}\n`);
    const report = await copyRegistry(source, target, (line) => io.stdout.write(`  ${line}\n`));
    await target.database.afterBulkImport?.();
    io.stdout.write(
      `Copied ${report.tenants} tenants, ${report.users} users, ${report.tokens} tokens, ${report.signingKeys} signing keys, ${report.teams} teams, ` +
        `${report.advisories} advisories, ${report.auditEntries} audit entries, ` +
        `${report.webhooks} webhooks (${report.webhookDeliveries} deliveries), ${report.packages} packages, ` +
        `${report.downloadCounts} download counts; ` +
        `${report.tarballsCopied} tarballs copied, ${report.tarballsPresent} already there (all verified)\n`,
    );
    if (report.problems.length > 0) {
      io.stderr.write(`Error: ${report.problems.length} packages were not copied:\n`);
      for (const problem of report.problems) io.stderr.write(`  ${problem}\n`);
      return 1;
    }
    return 0;
  } catch (err) {
    io.stderr.write(`Error: ${(err as Error).message}\n`);
    return err instanceof ConfigError ? 2 : 1;
  } finally {
    await source?.close();
    await target?.close();
  }
}

/** A registry named on the command line, resolved the way `serve` resolves its settings. */
function sideConfig(flag: string, registry: string, storage: string | undefined): Config {
  const isDatabase = /^(sqlite:|postgres(ql)?:\/\/)/.test(registry);
  if (!isDatabase) return loadConfig({ flags: { data: registry, ...(storage ? { storage } : {}) }, env: {} });
  if (registry.startsWith('sqlite:')) {
    const file = registry.slice('sqlite:'.length);
    return loadConfig({
      flags: { database: registry, storage: storage ?? path.join(path.dirname(file), 'tarballs') },
      env: {},
    });
  }
  if (!storage) throw new ConfigError(`${flag} names a PostgreSQL database: give its tarball storage with ${flag}-storage`);
  return loadConfig({ flags: { database: registry, storage }, env: {} });
}

function describe(config: Config): string {
  return `${redactUrlCredentials(config.database)} + ${redactUrlCredentials(config.storage)}`;
}
