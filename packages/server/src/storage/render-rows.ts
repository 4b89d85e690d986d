import type { StoredRender } from './ports.js';

/**
 * A `package_renders` row as both SQL drivers read it (PostgreSQL hands a bigint over as text).
 * The columns and their order are the same in both schemas.
 */
export interface RenderRow {
  etag: string;
  last_modified: number | string | null;
  size: number;
  coding: string | null;
  body: Buffer;
}

/** A RenderRow, or its columns of a package without the render. */
export type JoinedRenderRow = RenderRow | { [Column in keyof RenderRow]: null };

/** The values `RenderStore.readRenderOrPackage` is asked for, each a parameter of its statement. */
export type RenderOrPackageParam = 'tenant' | 'name' | 'form' | 'baseUrl';

/**
 * `RenderStore.readRenderOrPackage`'s statement in both SQL drivers, the same but for how each
 * names a parameter (`param`): the package's row with its render of the form and base URL joined
 * (the render's columns in RenderRow's order, all null when it has none), and the row's document
 * only when there is no render (the render is what is answered then, and the document is the
 * larger of the two).
 */
export function renderOrPackageSql(param: (name: RenderOrPackageParam) => string): string {
  return `SELECT r.etag, r.last_modified, r.size, r.coding, r.body,
            CASE WHEN r.etag IS NULL THEN p.document END AS document,
            CASE WHEN r.etag IS NULL THEN p.published_versions END AS published_versions, p.unpublished, p.write_count
       FROM packages p LEFT JOIN package_renders r
         ON r.tenant = p.tenant AND r.name = p.name AND r.form = ${param('form')} AND r.base_url = ${param('baseUrl')}
      WHERE p.tenant = ${param('tenant')} AND p.name = ${param('name')}`;
}

export function renderOfRow(form: StoredRender['form'], baseUrl: string, row: RenderRow): StoredRender {
  return {
    form,
    baseUrl,
    etag: row.etag,
    lastModified: row.last_modified === null ? undefined : Number(row.last_modified),
    size: row.size,
    coding: row.coding === 'gzip' ? 'gzip' : undefined,
    body: row.body,
  };
}

/** The values of a render's row after its tenant and name: form, base_url, etag, last_modified, size, coding, body. */
export function renderRowValues(render: StoredRender): unknown[] {
  return [render.form, render.baseUrl, render.etag, render.lastModified ?? null, render.size, render.coding ?? null, render.body];
}
