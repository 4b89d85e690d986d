import { ProtocolError } from '@pkg/protocol';
import { existsSync } from 'node:fs';
import { ConfigError, loadConfig, type Config } from '../config/config.js';
import { AdminError, AdminUsageError } from '../services/tenant-admin.js';
import { createStorage, type Storage } from '../storage/create-storage.js';

/** What an admin command reads and writes, passed in so that tests can run commands in-process. */
export interface AdminIo {
  stdout: { write(text: string): void };
  stderr: { write(text: string): void };
  env: NodeJS.ProcessEnv;
  /** The whole of stdin (for `--password-stdin`). */
  readStdin(): Promise<string>;
}

export const processAdminIo: AdminIo = {
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  async readStdin() {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  },
};

/** `--data` and `--config`: which registry's storage an admin command works on. */
export const STORAGE_OPTIONS = {
  data: { type: 'string' },
  config: { type: 'string' },
} as const;

/**
 * Opens the storage the server uses, from `--data`/`--config` and the PKG_REGISTRY_* environment
 * exactly as `serve` reads them. SQLite in WAL mode lets this run beside a running server.
 */
export async function openStorage(
  options: { data?: string | undefined; config?: string | undefined },
  io: AdminIo,
  { create = false }: { create?: boolean } = {},
): Promise<{ config: Config; storage: Storage }> {
  const config = loadConfig({
    flags: options.data !== undefined ? { data: options.data } : {},
    configFile: options.config,
    env: io.env,
  });
  // A mistyped --data must not quietly start an empty registry somewhere else.
  const file = config.database.startsWith('sqlite:') ? config.database.slice('sqlite:'.length) : undefined;
  if (!create && file !== undefined && !existsSync(file)) {
    throw new AdminError(`there is no registry database at ${file} (check --data or --config)`);
  }
  const storage = await createStorage(config);
  return { config, storage };
}

/**
 * Runs a command body and maps what it throws to an exit code: 2 for usage and configuration
 * mistakes, 1 for operations that could not be done. Messages go to stderr as `Error: …`.
 */
export async function runAdmin(io: AdminIo, group: string, body: () => Promise<number>): Promise<number> {
  try {
    return await body();
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    if ((typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS')) || err instanceof AdminUsageError) {
      io.stderr.write(`Error: ${(err as Error).message}\nRun 'pkg-registry ${group} help' for the commands and options.\n`);
      return 2;
    }
    if (err instanceof ConfigError) {
      io.stderr.write(`Error: ${err.message}\n${err.hint ? `Hint: ${err.hint}\n` : ''}`);
      return 2;
    }
    // A service's refusal (the same the HTTP API answers): its reason without the HTTP wording.
    io.stderr.write(`Error: ${err instanceof ProtocolError ? err.details : (err as Error).message}\n`);
    return 1;
  }
}

/** Fixed-width columns for listings; the last column is not padded. */
export function formatTable(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((row) => row[i]!.length)));
  return (
    rows.map((row) => row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  ')).join('\n') + '\n'
  );
}
