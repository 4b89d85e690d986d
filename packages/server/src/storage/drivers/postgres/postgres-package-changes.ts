import type pg from 'pg';
import type { ChangeFeedPosition, PackageChangeFeed, TenantId } from '../../ports.js';
import type { PostgresPackageWriteHook } from './postgres-metadata-store.js';

export const POSTGRES_PACKAGE_CHANGES_MIGRATIONS: readonly string[] = [
  // The trigger writes a row in the transaction of every change of a package's row, by whatever
  // path (a write on any node, an import, a tenant's deletion), tagged with that transaction's id.
  `
  CREATE TABLE package_changes (
    id bigserial PRIMARY KEY,
    tx xid8 NOT NULL DEFAULT pg_current_xact_id(),
    at timestamptz NOT NULL DEFAULT clock_timestamp(),
    tenant text NOT NULL,
    name text NOT NULL
  );
  CREATE INDEX package_changes_by_tx ON package_changes (tx);
  CREATE FUNCTION package_changes_record() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    IF TG_OP = 'DELETE' THEN
      INSERT INTO package_changes (tenant, name) VALUES (OLD.tenant, OLD.name);
    ELSE
      INSERT INTO package_changes (tenant, name) VALUES (NEW.tenant, NEW.name);
    END IF;
    RETURN NULL;
  END;
  $$;
  CREATE TRIGGER package_changes_after_write AFTER INSERT OR UPDATE OR DELETE ON packages
    FOR EACH ROW EXECUTE FUNCTION package_changes_record();
  `,
];

/**
 * Where a reader stands: the oldest transaction still running at its last read (every write not
 * read yet belongs to that one or a later one), and the rows already reported from there on.
 */
class Position implements ChangeFeedPosition {
  readonly feed = 'package-changes';
  constructor(
    readonly horizon: bigint,
    readonly reported: ReadonlySet<string>,
  ) {}
}

interface Row {
  horizon: string;
  id: string | null;
  tx: string | null;
  tenant: TenantId | null;
  name: string | null;
}

/**
 * The log of package writes in PostgreSQL. Row ids and transaction ids are handed out when a
 * transaction starts writing, but transactions commit in any order: a read that took "every id
 * after the last one seen" would miss a long transaction committed after a later one. So a read
 * takes every row of the transactions that were still running at the previous read, or started
 * since (PostgreSQL's snapshot says which: its `xmin`), and leaves out the rows it already
 * reported.
 */
export class PostgresPackageChanges implements PackageChangeFeed {
  #pool: pg.Pool | undefined;

  // The trigger does the package writes' part; a deleted tenant's rows age out with the rest.
  readonly writeHook: PostgresPackageWriteHook = {
    name: 'package-changes',
    migrations: POSTGRES_PACKAGE_CHANGES_MIGRATIONS,
    onWrite: async () => undefined,
  };

  attach(pool: pg.Pool): void {
    this.#pool = pool;
  }

  async read(
    after: ChangeFeedPosition | undefined,
  ): Promise<{ changed: { tenant: TenantId; name: string }[]; next: ChangeFeedPosition }> {
    const from = after instanceof Position ? after : undefined;
    // One statement, so the horizon and the rows come from one snapshot. A first read takes the
    // rows it will see again (those from its own horizon on) only to know them as told.
    const { rows } = await this.#requirePool().query<Row>(
      `WITH snapshot AS (SELECT pg_snapshot_xmin(pg_current_snapshot()) AS horizon)
       SELECT snapshot.horizon::text AS horizon, c.id::text AS id, c.tx::text AS tx, c.tenant, c.name
       FROM snapshot LEFT JOIN package_changes c ON c.tx >= COALESCE($1::xid8, snapshot.horizon)`,
      [from === undefined ? null : String(from.horizon)],
    );
    const horizon = BigInt(rows[0]!.horizon);
    const changed: { tenant: TenantId; name: string }[] = [];
    const reported = new Set<string>();
    for (const row of rows) {
      if (row.id === null) continue;
      if (from !== undefined && !from.reported.has(row.id)) changed.push({ tenant: row.tenant!, name: row.name! });
      // A row of a transaction at or after the new horizon is read again next time.
      if (BigInt(row.tx!) >= horizon) reported.add(row.id);
    }
    return { changed, next: new Position(horizon, reported) };
  }

  async prune(olderThanMs: number): Promise<void> {
    await this.#requirePool().query('DELETE FROM package_changes WHERE at < now() - make_interval(secs => $1)', [
      olderThanMs / 1000,
    ]);
  }

  #requirePool(): pg.Pool {
    if (!this.#pool) throw new Error('PostgresPackageChanges used before attach()');
    return this.#pool;
  }
}
