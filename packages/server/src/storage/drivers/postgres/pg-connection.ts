import pg from 'pg';
import { ConfigError } from '../../../config/config.js';

/** Where the PostgreSQL driver connects and which schema it owns. */
export interface PgLocation {
  /** The URL as pg understands it (our own `schema` parameter removed). */
  connectionString: string;
  /** Schema holding every table of the registry; `public` unless `?schema=` names another. */
  schema: string;
  /** Largest number of pooled connections (`?pool=`, default 10). */
  poolSize: number;
}

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * Reads `postgres://user:pass@host:5432/db?schema=registry&pool=20`. `schema` lets several
 * registries (or test runs) share one database; the other parameters are pg's own (sslmode, …).
 */
export function parsePostgresUrl(url: string): PgLocation {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ConfigError("setting 'database' is not a valid postgres:// URL");
  }
  const schema = parsed.searchParams.get('schema') ?? 'public';
  if (!SCHEMA_NAME.test(schema)) {
    throw new ConfigError(`setting 'database': schema must match ${SCHEMA_NAME.source}, got '${schema}'`);
  }
  const poolParam = parsed.searchParams.get('pool');
  const poolSize = poolParam === null ? 10 : Number(poolParam);
  if (!Number.isSafeInteger(poolSize) || poolSize < 2 || poolSize > 1000) {
    throw new ConfigError("setting 'database': pool must be an integer from 2 to 1000");
  }
  parsed.searchParams.delete('schema');
  parsed.searchParams.delete('pool');
  return { connectionString: parsed.toString(), schema, poolSize };
}

/** A pool whose sessions see the registry's schema first (and `public`, where extensions live). */
export function createPool(location: PgLocation, max = location.poolSize): pg.Pool {
  return new pg.Pool({
    connectionString: location.connectionString,
    options: `-c search_path=${location.schema},public`,
    max,
    connectionTimeoutMillis: 10_000,
    idleTimeoutMillis: 30_000,
    application_name: 'pkg-registry',
  });
}

/**
 * A pool of one session that stays inside one REPEATABLE READ, READ ONLY transaction: every
 * query through it sees the database as it was at the first query, whatever other nodes
 * commit meanwhile (a consistent snapshot for a backup, read through the ordinary store code).
 */
export function createSnapshotPool(location: PgLocation): pg.Pool {
  const pool = new pg.Pool({
    connectionString: location.connectionString,
    options: `-c search_path=${location.schema},public`,
    max: 1,
    // The session must never be closed while idle: a new one would start a new snapshot.
    idleTimeoutMillis: 0,
    connectionTimeoutMillis: 10_000,
    application_name: 'pkg-registry-backup',
  });
  return pool;
}

/**
 * Opens the snapshot of a pool made by createSnapshotPool: its one session begins the
 * transaction and takes the snapshot now, and goes back to the pool still inside it. Resolves
 * to a check that the session was never replaced (which would have left the snapshot).
 */
export async function beginSnapshot(pool: pg.Pool): Promise<() => boolean> {
  let sessions = 0;
  pool.on('connect', () => sessions++);
  await withSession(pool, async (client) => {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    await client.query('SELECT 1');
  });
  return () => sessions === 1;
}

/** A single session outside the pool (LISTEN needs one that stays open). */
export function createClient(location: PgLocation): pg.Client {
  return new pg.Client({
    connectionString: location.connectionString,
    options: `-c search_path=${location.schema},public`,
    connectionTimeoutMillis: 10_000,
    // Named per schema, so an operator (or a test) can tell which registry a session serves.
    application_name: `pkg-registry-listen:${location.schema}`.slice(0, 63),
    keepAlive: true,
  });
}

/** Runs `work` in a transaction on one pooled session; rolls back when it throws. */
export async function inTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  return withSession(pool, async (client, markBroken) => {
    await client.query('BEGIN');
    try {
      const result = await work(client);
      await client.query('COMMIT');
      return result;
    } catch (err) {
      // A session whose rollback fails is not given back to the pool.
      await client.query('ROLLBACK').catch(markBroken);
      throw err;
    }
  });
}

/**
 * Runs `work` on a session checked out of `pool`. pg-pool listens for a dropped connection only
 * while a session is idle; an 'error' event of a checked-out session with no listener would end
 * the process (a database restart in the middle of a request). The query in flight fails anyway,
 * so here the event only marks the session broken, and it is not given back to the pool.
 */
export async function withSession<T>(
  pool: pg.Pool,
  work: (client: pg.PoolClient, markBroken: (err: Error) => void) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  const markBroken = (err: Error): void => {
    broken ??= err;
  };
  client.on('error', markBroken);
  try {
    return await work(client, markBroken);
  } finally {
    client.removeListener('error', markBroken);
    client.release(broken);
  }
}
