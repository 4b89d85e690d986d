import { ConfigError, type Config } from '../config/config.js';
import { redactUrlCredentials } from './create-storage.js';

/** PostgreSQL's SQLSTATEs of a setting that is wrong: restarting does not help. */
const POSTGRES_SETTING_ERRORS: Record<string, string> = {
  '28P01': 'the password was refused',
  '28000': 'the user may not connect',
  '3D000': 'the database does not exist',
  '42501': 'the user lacks a privilege the registry needs (CREATE on the schema)',
  '3F000': 'the schema does not exist',
};

/** Network failures: the database may come back, so a service manager may retry. */
const UNREACHABLE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNRESET']);

/**
 * Opening storage failed: a ConfigError (exit 2) when an operator must act (a database file
 * that is no database, a read-only one, a password PostgreSQL refuses, data of a newer
 * release), otherwise an error (exit 1) whose cause may pass (a database not reachable yet).
 * Either names the setting and the path or host, never a password.
 */
export function explainStorageFailure(
  err: unknown,
  config: Pick<Config, 'database' | 'storage'>,
): ConfigError | (Error & { hint?: string }) {
  if (err instanceof ConfigError) return err;
  const code = (err as { code?: unknown })?.code;
  const database = redactUrlCredentials(config.database);
  if (config.database.startsWith('sqlite:') && typeof code === 'string' && code.startsWith('SQLITE_')) {
    const file = config.database.slice('sqlite:'.length);
    const reason =
      code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT'
        ? `${file} is not a SQLite database or is damaged`
        : code.startsWith('SQLITE_READONLY')
          ? `${file} is read-only`
          : code.startsWith('SQLITE_CANTOPEN')
            ? `cannot open ${file}`
            : code === 'SQLITE_BUSY'
              ? `${file} is locked by another process`
              : `cannot open ${file} (${code})`;
    return new ConfigError(
      `setting 'database': ${reason}`,
      code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT'
        ? 'restore the database from a backup (pkg-registry restore), or point --database elsewhere'
        : 'give the user running pkg-registry read and write access to the file and its directory',
    );
  }
  if (!config.database.startsWith('sqlite:') && typeof code === 'string' && code in POSTGRES_SETTING_ERRORS) {
    return new ConfigError(
      `setting 'database': ${database}: ${POSTGRES_SETTING_ERRORS[code]}`,
      'check the user, password and database name in the postgres:// URL',
    );
  }
  if (typeof code === 'string' && UNREACHABLE.has(code)) {
    return Object.assign(new Error(`cannot reach ${describeTarget(err)}: ${code}`), {
      hint: 'start it or fix the address; a service manager may restart pkg-registry until it answers',
    });
  }
  const file = (err as { path?: unknown }).path;
  if (typeof code === 'string' && /^E[A-Z]+$/.test(code) && typeof file === 'string') {
    const setting = file.startsWith(config.storage) ? 'storage' : 'database';
    return new ConfigError(
      `setting '${setting}': cannot use ${file}: ${code}`,
      'give the user running pkg-registry write access to it',
    );
  }
  const message = err instanceof Error ? err.message : String(err);
  return new Error(`cannot open storage (${database}): ${message.replace(/\/\/[^@/\s]*@/g, '//***@')}`);
}

function describeTarget(err: unknown): string {
  // Start-up waits for nothing else: Redis is optional at start, the blob store is reached later.
  const address = (err as { address?: string; port?: number }).address;
  const port = (err as { port?: number }).port;
  return `the database${address ? ` at ${address}${port ? `:${port}` : ''}` : ''} (setting 'database')`;
}
