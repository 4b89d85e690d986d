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

/** The columns a driver selects, in RenderRow's order. */
export const RENDER_COLUMNS = 'etag, last_modified, size, coding, body';

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
