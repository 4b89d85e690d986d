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

/**
 * The columns a driver selects, in RenderRow's order, of `package_renders` joined as `r` to the
 * package's row (`RenderStore.readRenderOrPackage`): all null when the package has no such render.
 */
export const RENDER_COLUMNS = 'r.etag, r.last_modified, r.size, r.coding, r.body';

/** A RenderRow, or its columns of a package without the render. */
export type JoinedRenderRow = RenderRow | { [Column in keyof RenderRow]: null };

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
