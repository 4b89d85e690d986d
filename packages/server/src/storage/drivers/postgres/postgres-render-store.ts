import type pg from 'pg';
import type { KeptRender, RenderOrPackage, RenderStore, StoredRender, TenantId } from '../../ports.js';
import { packageOfRow, type PackageRow, type PostgresPackageWriteHook } from './postgres-metadata-store.js';
import { renderOfRow, renderOrPackageSql, renderRowValues, type JoinedRenderRow } from '../../render-rows.js';

export const POSTGRES_RENDER_STORE_MIGRATIONS: readonly string[] = [
  // The trigger drops a package's renders in the transaction of any change to its row, by
  // whatever path (a write on any node, a migration, a tenant's deletion).
  `
  CREATE TABLE package_renders (
    tenant text NOT NULL,
    name text NOT NULL,
    form text NOT NULL,
    base_url text NOT NULL,
    etag text NOT NULL,
    last_modified bigint,
    size integer NOT NULL,
    coding text,
    body bytea NOT NULL,
    PRIMARY KEY (tenant, name, form)
  );
  CREATE FUNCTION package_renders_drop() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    DELETE FROM package_renders WHERE tenant = OLD.tenant AND name = OLD.name;
    RETURN NULL;
  END;
  $$;
  CREATE TRIGGER package_renders_after_change AFTER UPDATE OR DELETE ON packages
    FOR EACH ROW EXECUTE FUNCTION package_renders_drop();
  `,
];

/** readRenderOrPackage's statement, its values in the order of `PARAMETERS`. */
const PARAMETERS = ['tenant', 'name', 'form', 'baseUrl'] as const;
const RENDER_OR_PACKAGE_SQL = renderOrPackageSql((param) => `$${PARAMETERS.indexOf(param) + 1}`);

/** Rendered package documents in PostgreSQL: every node reads what any node rendered. */
export class PostgresRenderStore implements RenderStore {
  #pool: pg.Pool | undefined;

  // The trigger does the package writes' part.
  readonly writeHook: PostgresPackageWriteHook = {
    name: 'renders',
    migrations: POSTGRES_RENDER_STORE_MIGRATIONS,
    onWrite: async () => undefined,
  };

  attach(pool: pg.Pool): void {
    this.#pool = pool;
  }

  /**
   * One statement, one round trip, whether the package has the render or not; the render and the
   * row it was made from are read in one snapshot. Named, so each session plans it once: planned
   * on every execution, the join costs more than the round trip it saves, and a read of a kept
   * render more than its own lookup alone.
   */
  async readRenderOrPackage(
    tenant: TenantId,
    name: string,
    form: StoredRender['form'],
    baseUrl: string,
  ): Promise<RenderOrPackage | undefined> {
    const { rows } = await this.#requirePool().query<JoinedRenderRow & PackageRow>({
      name: 'render-or-package',
      text: RENDER_OR_PACKAGE_SQL,
      values: [tenant, name, form, baseUrl],
    });
    const row = rows[0];
    if (row === undefined) return undefined;
    return row.etag === null ? { package: packageOfRow(row) } : { render: renderOfRow(form, baseUrl, row) };
  }

  /**
   * The package's row is share-locked by the statement: a write of it on another node, not yet
   * committed, is waited for, and then the row no longer has `revision` and nothing is kept; a
   * write that starts after waits for this statement, and its trigger drops what was kept.
   */
  async keepRender(tenant: TenantId, name: string, revision: number, render: StoredRender): Promise<void> {
    await this.#requirePool().query(
      `INSERT INTO package_renders (tenant, name, form, base_url, etag, last_modified, size, coding, body)
             SELECT $1, $2, $3, $4, $5, $6::bigint, $7::integer, $8, $9::bytea FROM packages
             WHERE tenant = $1 AND name = $2 AND write_count = $10::bigint FOR SHARE
             ON CONFLICT (tenant, name, form) DO UPDATE SET base_url = excluded.base_url, etag = excluded.etag,
             last_modified = excluded.last_modified, size = excluded.size, coding = excluded.coding, body = excluded.body`,
      [tenant, name, ...renderRowValues(render), revision],
    );
  }

  /** One statement for all of them, each row share-locked as `keepRender` locks it. */
  async keepRenders(tenant: TenantId, renders: readonly KeptRender[]): Promise<void> {
    if (renders.length === 0) return;
    const column = (i: number) => renders.map(({ render }) => renderRowValues(render)[i]);
    await this.#requirePool().query(
      `INSERT INTO package_renders (tenant, name, form, base_url, etag, last_modified, size, coding, body)
       SELECT $1, r.name, r.form, r.base_url, r.etag, r.last_modified, r.size, r.coding, r.body
       FROM unnest($2::text[], $3::bigint[], $4::text[], $5::text[], $6::text[], $7::bigint[], $8::integer[], $9::text[],
         $10::bytea[]) AS r(name, revision, form, base_url, etag, last_modified, size, coding, body)
       JOIN packages p ON p.tenant = $1 AND p.name = r.name AND p.write_count = r.revision
       FOR SHARE OF p
       ON CONFLICT (tenant, name, form) DO UPDATE SET base_url = excluded.base_url, etag = excluded.etag,
         last_modified = excluded.last_modified, size = excluded.size, coding = excluded.coding, body = excluded.body`,
      [
        tenant,
        renders.map((kept) => kept.name),
        renders.map((kept) => kept.revision),
        ...Array.from({ length: 7 }, (_, i) => column(i)),
      ],
    );
  }

  #requirePool(): pg.Pool {
    if (!this.#pool) throw new Error('PostgresRenderStore is not attached to a pool');
    return this.#pool;
  }
}
