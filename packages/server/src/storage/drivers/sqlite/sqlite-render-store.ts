import type Database from 'better-sqlite3';
import type { KeptRender, RenderOrPackage, RenderStore, StoredRender, TenantId } from '../../ports.js';
import { AttachedDatabase } from './attached-database.js';
import { packageOfRow, type PackageRow, type SqlitePackageWriteHook } from './sqlite-metadata-store.js';
import { renderOfRow, renderOrPackageSql, renderRowValues, type JoinedRenderRow } from '../../render-rows.js';

type Db = Database.Database;

export const RENDER_STORE_MIGRATIONS: readonly string[] = [
  // A rowid table: its rows (a kilobyte or more) would make a table keyed by its primary key
  // spill into overflow pages. The triggers drop a package's renders in the transaction of any
  // change to its row, by whatever path (a write, a migration, a tenant's deletion).
  `
  CREATE TABLE package_renders (
    tenant TEXT NOT NULL,
    name TEXT NOT NULL,
    form TEXT NOT NULL,
    base_url TEXT NOT NULL,
    etag TEXT NOT NULL,
    last_modified INTEGER,
    size INTEGER NOT NULL,
    coding TEXT,
    body BLOB NOT NULL,
    PRIMARY KEY (tenant, name, form)
  );
  CREATE TRIGGER package_renders_after_update AFTER UPDATE ON packages BEGIN
    DELETE FROM package_renders WHERE tenant = old.tenant AND name = old.name;
  END;
  CREATE TRIGGER package_renders_after_delete AFTER DELETE ON packages BEGIN
    DELETE FROM package_renders WHERE tenant = old.tenant AND name = old.name;
  END;
  `,
];

/** readRenderOrPackage's statement, with named parameters. */
const RENDER_OR_PACKAGE_SQL = renderOrPackageSql((param) => `@${param}`);

/** Rendered package documents in the SQLite database, beside the documents they are made from. */
export class SqliteRenderStore implements RenderStore {
  readonly #db = new AttachedDatabase('SqliteRenderStore');

  // The triggers do the package writes' part.
  readonly writeHook: SqlitePackageWriteHook = { name: 'renders', migrations: RENDER_STORE_MIGRATIONS, onWrite: () => undefined };

  attach(db: Db): void {
    this.#db.attach(db);
  }

  async readRenderOrPackage(
    tenant: TenantId,
    name: string,
    form: StoredRender['form'],
    baseUrl: string,
  ): Promise<RenderOrPackage | undefined> {
    const row = this.#db.statement(RENDER_OR_PACKAGE_SQL).get({ tenant, name, form, baseUrl }) as
      (JoinedRenderRow & PackageRow) | undefined;
    if (row === undefined) return undefined;
    return row.etag === null ? { package: packageOfRow(row) } : { render: renderOfRow(form, baseUrl, row) };
  }

  /**
   * One statement: SQLite has one writer at a time, so the package is at `revision` when it is
   * kept, or the write that moved it on has already dropped the package's renders and this keeps
   * nothing.
   */
  async keepRender(tenant: TenantId, name: string, revision: number, render: StoredRender): Promise<void> {
    this.#keep(tenant, name, revision, render);
  }

  /** Each render's statement, all in one transaction (one commit). */
  async keepRenders(tenant: TenantId, renders: readonly KeptRender[]): Promise<void> {
    this.#db.require().transaction(() => {
      for (const { name, revision, render } of renders) this.#keep(tenant, name, revision, render);
    })();
  }

  #keep(tenant: TenantId, name: string, revision: number, render: StoredRender): void {
    this.#db
      .statement(
        `INSERT INTO package_renders (tenant, name, form, base_url, etag, last_modified, size, coding, body)
         SELECT ?, ?, ?, ?, ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM packages WHERE tenant = ? AND name = ? AND write_count = ?)
         ON CONFLICT (tenant, name, form) DO UPDATE SET base_url = excluded.base_url, etag = excluded.etag,
           last_modified = excluded.last_modified, size = excluded.size, coding = excluded.coding, body = excluded.body`,
      )
      .run(tenant, name, ...renderRowValues(render), tenant, name, revision);
  }
}
