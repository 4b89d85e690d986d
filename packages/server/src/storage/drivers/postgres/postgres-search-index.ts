import type pg from 'pg';
import { deriveSearchFields, maintainerKeys, type SearchFields } from '../../../search/search-fields.js';
import { allPackagesSummary, searchPackageObject, serializedSearchDocuments } from '../../../search/search-documents.js';
import type { SearchQuery } from '../../../search/search-query.js';
import { scorePackage, scoreWrittenPackage } from '../../../search/scoring.js';
import { addDays, utcDay } from '../../../search/utc-days.js';
import type { PackageSummary, PackageWrite, SearchHit, SearchIndex, SearchPage, StoredPackage, TenantId } from '../../ports.js';
import { listKey, partsKey } from '../../../search/search-keys.js';
import { inTransaction } from './pg-connection.js';
import type { PostgresMigration } from './migrations.js';
import { toStoredPackage, type PostgresPackageWriteHook } from './postgres-metadata-store.js';
import { compileSearch, FIELD_MARK, searchWords } from './postgres-search-sql.js';

/**
 * One row per package: ranking columns, the stored keys the tiers are computed from, the
 * searchable texts twice indexed (trigrams for substrings, words for short prefixes), and what
 * results show, serialized at index time. pg_trgm lives in `public`, shared by every schema.
 */
export const POSTGRES_SEARCH_MIGRATIONS: readonly PostgresMigration[] = [
  `
  CREATE EXTENSION IF NOT EXISTS pg_trgm WITH SCHEMA public;
  CREATE TABLE search_packages (
    tenant text NOT NULL,
    name text NOT NULL,
    display_lc text NOT NULL,
    parts_key text NOT NULL,
    keywords_key text NOT NULL,
    author_lc text NOT NULL,
    maintainers_key text NOT NULL,
    search_text text NOT NULL,
    words tsvector NOT NULL,
    deprecated boolean NOT NULL,
    unstable boolean NOT NULL,
    final double precision NOT NULL,
    quality double precision NOT NULL,
    popularity double precision NOT NULL,
    maintenance double precision NOT NULL,
    downloads_week bigint NOT NULL DEFAULT 0,
    downloads_month bigint NOT NULL DEFAULT 0,
    deprecated_message text,
    updated text NOT NULL,
    modified text NOT NULL,
    release_times json NOT NULL,
    package_json text NOT NULL,
    summary_json text NOT NULL,
    PRIMARY KEY (tenant, name)
  );
  CREATE INDEX search_packages_trigrams ON search_packages USING gin (search_text public.gin_trgm_ops);
  CREATE INDEX search_packages_words ON search_packages USING gin (words);
  CREATE INDEX search_packages_by_rank ON search_packages (tenant, deprecated, final DESC, (name COLLATE "C"));
  CREATE INDEX search_packages_by_name ON search_packages (tenant, (name COLLATE "C"));
  `,
  // The day of each tenant's last full score refresh: the first node to start on a day does it.
  `
  CREATE TABLE search_refreshes (
    tenant text PRIMARY KEY,
    refreshed_day text NOT NULL
  );
  `,
  // Search objects gained `engines`: packages indexed before show them without a new publish.
  rewriteSearchDocuments,
  // Unity's engine entry gained `signature` (issue 30): packages indexed before show it without a new publish.
  rewriteSearchDocuments,
  // Every write scores its package against the tenant's most downloaded one: without an index
  // that maximum read every row of the tenant, so a publish cost time in proportion to the registry.
  `CREATE INDEX search_packages_by_downloads ON search_packages (tenant, downloads_month);`,
  // A GIN index's fast update queues new rows in a pending list that every search reads whole
  // until a vacuum merges it (megabytes after many publishes), and the planner, counting it,
  // scans the table instead. Searches far outnumber publishes: each write merges its own row.
  `
  ALTER INDEX search_packages_trigrams SET (fastupdate = off);
  ALTER INDEX search_packages_words SET (fastupdate = off);
  SELECT gin_clean_pending_list('search_packages_trigrams'::regclass), gin_clean_pending_list('search_packages_words'::regclass);
  `,
];

const REWRITE_CHUNK = 500;

/** Serializes every indexed package's search shapes again from its stored document. */
async function rewriteSearchDocuments(client: pg.ClientBase): Promise<void> {
  // In chunks, by key: a large registry's documents are never all in memory at once.
  let after: [string, string] = ['', ''];
  for (;;) {
    const { rows } = await client.query<{
      tenant: string;
      name: string;
      document: StoredPackage['document'];
      published_versions: string[];
      unpublished: boolean;
    }>(
      `SELECT s.tenant, s.name, p.document, p.published_versions, p.unpublished
       FROM search_packages s JOIN packages p ON p.tenant = s.tenant AND p.name = s.name
       WHERE (s.tenant, s.name COLLATE "C") > ($1, $2 COLLATE "C") ORDER BY s.tenant, s.name COLLATE "C" LIMIT $3`,
      [...after, REWRITE_CHUNK],
    );
    if (rows.length === 0) break;
    for (const row of rows) {
      const documents = serializedSearchDocuments(toStoredPackage(row));
      if (!documents) continue;
      await client.query('UPDATE search_packages SET package_json = $1, summary_json = $2 WHERE tenant = $3 AND name = $4', [
        documents.packageJson,
        documents.summaryJson,
        row.tenant,
        row.name,
      ]);
    }
    const last = rows[rows.length - 1]!;
    after = [last.tenant, last.name];
  }
}

export interface PostgresSearchIndexOptions {
  /** Clock for the scores computed when a package is written. */
  now?: () => Date;
}

const REFRESH_CHUNK = 2000;

interface PageRow {
  tier: number;
  /** The query's matches (search pages only). */
  total?: string;
  name: string;
  deprecated_message: string | null;
  unstable: boolean;
  final: number;
  quality: number;
  popularity: number;
  maintenance: number;
  downloads_week: string;
  downloads_month: string;
  updated: string;
  modified: string;
  package_json: string;
}

interface ScoreRow {
  name: string;
  quality: number;
  release_times: number[];
  deprecated: boolean;
  downloads_month: string;
  final: number;
  popularity: number;
  maintenance: number;
}

/**
 * The search index in PostgreSQL. Its write hook keeps the index in the package's own write
 * transaction (so every node sees a publish in search as soon as it commits); the queries
 * follow search/relevance.ts, checked against it by the same tests as the SQLite index.
 */
export class PostgresSearchIndex implements SearchIndex {
  #pool: pg.Pool | undefined;
  readonly #now: () => Date;

  readonly writeHook: PostgresPackageWriteHook = {
    name: 'search',
    migrations: POSTGRES_SEARCH_MIGRATIONS,
    onWrite: (client, tenant, name, pkg) => this.#index(client, tenant, name, pkg),
    onWrites: (client, tenant, writes) => this.#indexAll(client, tenant, writes),
    onTenantDelete: async (client, tenant) => {
      await client.query('DELETE FROM search_packages WHERE tenant = $1', [tenant]);
      await client.query('DELETE FROM search_refreshes WHERE tenant = $1', [tenant]);
    },
  };

  constructor(options: PostgresSearchIndexOptions = {}) {
    this.#now = options.now ?? (() => new Date());
  }

  attach(pool: pg.Pool): void {
    this.#pool = pool;
  }

  async search(tenant: TenantId, query: SearchQuery, page: { size: number; from: number }): Promise<SearchPage> {
    if (query.insecure) return { total: 0, hits: [] };
    const pool = this.#requirePool();
    const compiled = compileSearch(tenant, query);
    const rows =
      page.size > 0 ? (await pool.query<PageRow>(compiled.pageSql, [...compiled.params, page.size, page.from])).rows : [];
    const total =
      rows.length > 0
        ? Number(rows[0]!.total)
        : page.size > 0 && page.from === 0
          ? 0
          : Number((await pool.query<{ total: string }>(compiled.countSql, compiled.countParams)).rows[0]!.total);
    return { total, hits: rows.map(toHit) };
  }

  async ranked(tenant: TenantId, order: 'updated' | 'downloads', page: { size: number; from: number }): Promise<SearchPage> {
    const pool = this.#requirePool();
    const filter = order === 'downloads' ? 'AND p.downloads_month > 0' : '';
    const orderBy =
      order === 'downloads' ? 'p.downloads_month DESC, p.name COLLATE "C"' : 'p.updated COLLATE "C" DESC, p.name COLLATE "C"';
    const { rows } = await pool.query<PageRow>(
      `SELECT 0 AS tier, p.name, p.deprecated_message, p.unstable, p.final, p.quality, p.popularity, p.maintenance,
         p.downloads_week, p.downloads_month, p.updated, p.modified, p.package_json
       FROM search_packages p WHERE p.tenant = $1 ${filter} ORDER BY ${orderBy} LIMIT $2 OFFSET $3`,
      [tenant, page.size, page.from],
    );
    const count = await pool.query<{ total: string }>(
      `SELECT count(*) AS total FROM search_packages p WHERE p.tenant = $1 ${filter}`,
      [tenant],
    );
    return { total: Number(count.rows[0]!.total), hits: rows.map(toHit) };
  }

  async listSummaries(tenant: TenantId, after: string | null, limit: number): Promise<PackageSummary[]> {
    const { rows } = await this.#requirePool().query<{ name: string; summary_json: string }>(
      `SELECT name, summary_json FROM search_packages
       WHERE tenant = $1 AND name COLLATE "C" > $2 ORDER BY name COLLATE "C" LIMIT $3`,
      [tenant, after ?? '', limit],
    );
    return rows.map((row) => ({ name: row.name, summaryJson: row.summary_json }));
  }

  async refreshScores(tenant: TenantId, names: readonly string[] | null, now: Date): Promise<boolean> {
    const pool = this.#requirePool();
    let changed = 0;
    const today = utcDay(now);
    const window = [tenant, addDays(today, -6), addDays(today, -29), today];
    const sums = `SELECT name, coalesce(sum(CASE WHEN day >= $2 THEN count ELSE 0 END), 0) AS week, coalesce(sum(count), 0) AS month
      FROM download_counts WHERE tenant = $1 AND day BETWEEN $3 AND $4`;
    if (names === null) {
      await inTransaction(pool, async (client) => {
        // Only rows whose windows change are written: each update of a row writes a new version
        // of it into every index of the table, its two GIN indexes included.
        const zeroed = await client.query(
          `UPDATE search_packages p SET downloads_week = 0, downloads_month = 0
           WHERE p.tenant = $1 AND (p.downloads_week <> 0 OR p.downloads_month <> 0)
             AND NOT EXISTS (SELECT 1 FROM download_counts c
                             WHERE c.tenant = $1 AND c.name = p.name AND c.day BETWEEN $2 AND $3)`,
          [tenant, window[2], today],
        );
        const set = await client.query(
          `UPDATE search_packages p SET downloads_week = s.week, downloads_month = s.month
           FROM (${sums} GROUP BY name) s WHERE p.tenant = $1 AND p.name = s.name
             AND (p.downloads_week, p.downloads_month) IS DISTINCT FROM (s.week, s.month)`,
          window,
        );
        changed += (zeroed.rowCount ?? 0) + (set.rowCount ?? 0);
      });
      let after = '';
      for (;;) {
        const { rows } = await pool.query<ScoreRow>(
          `SELECT name, quality, release_times, deprecated, downloads_month, final, popularity, maintenance
           FROM search_packages WHERE tenant = $1 AND name COLLATE "C" > $2 ORDER BY name COLLATE "C" LIMIT $3`,
          [tenant, after, REFRESH_CHUNK],
        );
        if (rows.length === 0) break;
        changed += await inTransaction(pool, (client) => this.#rescore(client, tenant, rows, now));
        after = rows[rows.length - 1]!.name;
      }
      await inTransaction(pool, async (client) => {
        // Not for a tenant deleted meanwhile (its row is share-locked, as every tenant write does).
        if (tenant !== '' && (await client.query('SELECT 1 FROM tenants WHERE name = $1 FOR SHARE', [tenant])).rowCount === 0)
          return;
        await client.query(
          `INSERT INTO search_refreshes (tenant, refreshed_day) VALUES ($1, $2)
           ON CONFLICT (tenant) DO UPDATE SET refreshed_day = EXCLUDED.refreshed_day`,
          [tenant, today],
        );
      });
      return changed > 0;
    }
    for (let i = 0; i < names.length; i += REFRESH_CHUNK) {
      const chunk = names.slice(i, i + REFRESH_CHUNK);
      await inTransaction(pool, async (client) => {
        const set = await client.query(
          `UPDATE search_packages p SET downloads_week = coalesce(s.week, 0), downloads_month = coalesce(s.month, 0)
           FROM unnest($5::text[]) AS n(name) LEFT JOIN (${sums} AND name = ANY($5) GROUP BY name) s ON s.name = n.name
           WHERE p.tenant = $1 AND p.name = n.name
             AND (p.downloads_week, p.downloads_month) IS DISTINCT FROM (coalesce(s.week, 0), coalesce(s.month, 0))`,
          [...window, chunk],
        );
        const { rows } = await client.query<ScoreRow>(
          `SELECT name, quality, release_times, deprecated, downloads_month, final, popularity, maintenance
           FROM search_packages WHERE tenant = $1 AND name = ANY($2)`,
          [tenant, chunk],
        );
        changed += (set.rowCount ?? 0) + (await this.#rescore(client, tenant, rows, now));
      });
    }
    return changed > 0;
  }

  async scoresRefreshedOn(tenant: TenantId): Promise<string | null> {
    const { rows } = await this.#requirePool().query<{ refreshed_day: string }>(
      'SELECT refreshed_day FROM search_refreshes WHERE tenant = $1',
      [tenant],
    );
    return rows[0]?.refreshed_day ?? null;
  }

  /** Rescores `rows`, writing those whose scores change; returns how many it wrote. */
  async #rescore(client: pg.ClientBase, tenant: TenantId, rows: ScoreRow[], now: Date): Promise<number> {
    const max = await maxMonthlyDownloads(client, tenant);
    const changed: { name: string; final: number; popularity: number; maintenance: number }[] = [];
    for (const row of rows) {
      const scores = scorePackage(
        {
          quality: row.quality,
          releaseTimes: row.release_times,
          deprecated: row.deprecated,
          monthlyDownloads: Number(row.downloads_month),
          maxMonthlyDownloads: max,
        },
        now,
      );
      const { popularity, maintenance } = scores.detail;
      if (scores.final !== row.final || popularity !== row.popularity || maintenance !== row.maintenance) {
        changed.push({ name: row.name, final: scores.final, popularity, maintenance });
      }
    }
    if (changed.length === 0) return 0;
    await client.query(
      `UPDATE search_packages p SET final = c.final, popularity = c.popularity, maintenance = c.maintenance
       FROM unnest($2::text[], $3::float8[], $4::float8[], $5::float8[]) AS c(name, final, popularity, maintenance)
       WHERE p.tenant = $1 AND p.name = c.name`,
      [
        tenant,
        changed.map((c) => c.name),
        changed.map((c) => c.final),
        changed.map((c) => c.popularity),
        changed.map((c) => c.maintenance),
      ],
    );
    return changed.length;
  }

  async #index(client: pg.ClientBase, tenant: TenantId, name: string, pkg: StoredPackage): Promise<void> {
    const fields = deriveSearchFields(pkg);
    if (fields === null) {
      await client.query('DELETE FROM search_packages WHERE tenant = $1 AND name = $2', [tenant, name]);
      return;
    }
    // One round trip for both: it is paid on every write.
    const { rows } = await client.query<{ monthly: string | null; max: string | null }>(
      `SELECT (SELECT downloads_month FROM search_packages WHERE tenant = $1 AND name = $2) AS monthly,
         (SELECT max(downloads_month) FROM search_packages WHERE tenant = $1) AS max`,
      [tenant, name],
    );
    const row = searchRow(fields, Number(rows[0]?.monthly ?? 0), Number(rows[0]?.max ?? 0), this.#now());
    await client.query(
      `INSERT INTO search_packages (tenant, name, ${SEARCH_ROW_COLUMNS})
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, array_to_tsvector($9::text[]), $10, $11, $12, $13, $14, $15, $16,
         $17, $18, $19, $20, $21)
       ON CONFLICT (tenant, name) DO UPDATE SET ${SEARCH_ROW_UPDATE}`,
      [tenant, name, ...row],
    );
  }

  /**
   * The rows of several packages written together (`writePackages`): the same rows as #index
   * writes for each, in three statements for all of them. Their monthly downloads are left as
   * they are, and a package write changes no one's, so the registry's highest is read once.
   */
  async #indexAll(client: pg.ClientBase, tenant: TenantId, writes: readonly PackageWrite[]): Promise<void> {
    const gone: string[] = [];
    const indexed: { name: string; fields: SearchFields }[] = [];
    for (const { name, next } of writes) {
      const fields = deriveSearchFields(next);
      if (fields === null) gone.push(name);
      else indexed.push({ name, fields });
    }
    if (gone.length > 0)
      await client.query('DELETE FROM search_packages WHERE tenant = $1 AND name = ANY($2::text[])', [tenant, gone]);
    if (indexed.length === 0) return;
    const { rows } = await client.query<{ name: string | null; monthly: string | null; max: string | null }>(
      `SELECT p.name, p.downloads_month AS monthly, (SELECT max(downloads_month) FROM search_packages WHERE tenant = $1) AS max
       FROM (SELECT 1) one LEFT JOIN search_packages p ON p.tenant = $1 AND p.name = ANY($2::text[])`,
      [tenant, indexed.map((entry) => entry.name)],
    );
    const monthly = new Map(rows.map((row) => [row.name, Number(row.monthly ?? 0)]));
    const max = Number(rows[0]?.max ?? 0);
    const now = this.#now();
    const values = indexed.map(({ name, fields }) => searchRow(fields, monthly.get(name) ?? 0, max, now));
    // One array per column; each row's words go as a JSON array (an array of arrays must be rectangular).
    const column = (i: number) => values.map((row) => row[i]);
    await client.query(
      `INSERT INTO search_packages (tenant, name, ${SEARCH_ROW_COLUMNS})
       SELECT $1, r.name, r.display_lc, r.parts_key, r.keywords_key, r.author_lc, r.maintainers_key, r.search_text,
         array_to_tsvector(ARRAY(SELECT jsonb_array_elements_text(r.words::jsonb))), r.deprecated, r.unstable, r.final,
         r.quality, r.popularity, r.maintenance, r.deprecated_message, r.updated, r.modified, r.release_times::json,
         r.package_json, r.summary_json
       FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[],
         $10::boolean[], $11::boolean[], $12::float8[], $13::float8[], $14::float8[], $15::float8[], $16::text[],
         $17::text[], $18::text[], $19::text[], $20::text[], $21::text[])
         AS r(name, display_lc, parts_key, keywords_key, author_lc, maintainers_key, search_text, words, deprecated,
           unstable, final, quality, popularity, maintenance, deprecated_message, updated, modified, release_times,
           package_json, summary_json)
       ON CONFLICT (tenant, name) DO UPDATE SET ${SEARCH_ROW_UPDATE}`,
      [
        tenant,
        indexed.map((entry) => entry.name),
        ...Array.from({ length: SEARCH_ROW_WIDTH }, (_, i) =>
          i === WORDS_AT ? column(i).map((words) => JSON.stringify(words)) : column(i),
        ),
      ],
    );
  }

  #requirePool(): pg.Pool {
    if (!this.#pool) throw new Error('PostgresSearchIndex is not attached to a database');
    return this.#pool;
  }
}

async function maxMonthlyDownloads(client: pg.ClientBase, tenant: TenantId): Promise<number> {
  const { rows } = await client.query<{ max: string | null }>(
    'SELECT max(downloads_month) AS max FROM search_packages WHERE tenant = $1',
    [tenant],
  );
  return Number(rows[0]?.max ?? 0);
}

function toHit(row: PageRow): SearchHit {
  return {
    name: row.name,
    tier: row.tier,
    ...(row.deprecated_message !== null ? { deprecated: row.deprecated_message } : {}),
    unstable: row.unstable,
    scores: {
      final: row.final,
      detail: { quality: row.quality, popularity: row.popularity, maintenance: row.maintenance },
    },
    downloads: { weekly: Number(row.downloads_week), monthly: Number(row.downloads_month) },
    updated: row.updated,
    modified: row.modified,
    packageJson: row.package_json,
  };
}

/** The columns of a search row after its tenant and name, in the order `searchRow` gives their values. */
const SEARCH_ROW_COLUMNS = `display_lc, parts_key, keywords_key, author_lc, maintainers_key, search_text, words,
  deprecated, unstable, final, quality, popularity, maintenance, deprecated_message, updated, modified, release_times,
  package_json, summary_json`;

const SEARCH_ROW_UPDATE = `display_lc = EXCLUDED.display_lc, parts_key = EXCLUDED.parts_key,
  keywords_key = EXCLUDED.keywords_key, author_lc = EXCLUDED.author_lc, maintainers_key = EXCLUDED.maintainers_key,
  search_text = EXCLUDED.search_text, words = EXCLUDED.words, deprecated = EXCLUDED.deprecated,
  unstable = EXCLUDED.unstable, final = EXCLUDED.final, quality = EXCLUDED.quality, popularity = EXCLUDED.popularity,
  maintenance = EXCLUDED.maintenance, deprecated_message = EXCLUDED.deprecated_message, updated = EXCLUDED.updated,
  modified = EXCLUDED.modified, release_times = EXCLUDED.release_times, package_json = EXCLUDED.package_json,
  summary_json = EXCLUDED.summary_json`;

const SEARCH_ROW_WIDTH = 19;
/** Where the row's words are (a text[] made into the tsvector). */
const WORDS_AT = 6;

/** A written package's search row after its tenant and name (SEARCH_ROW_COLUMNS), scored as it is written. */
function searchRow(fields: SearchFields, monthly: number, max: number, now: Date): unknown[] {
  const scores = scoreWrittenPackage(fields, monthly, max, now);
  const { texts } = fields;
  const termTexts = [texts.name, texts.displayName, texts.keywords, texts.description, texts.author];
  return [
    texts.displayName,
    partsKey(texts.name, texts.displayName),
    listKey(fields.keywords.map((k) => k.toLowerCase())),
    texts.author,
    listKey(maintainerKeys(fields)),
    termTexts.join(FIELD_MARK),
    searchWords(termTexts),
    fields.deprecated !== undefined,
    fields.unstable,
    scores.final,
    scores.detail.quality,
    scores.detail.popularity,
    scores.detail.maintenance,
    fields.deprecated ?? null,
    fields.updated,
    fields.modified,
    JSON.stringify(fields.releaseTimes),
    JSON.stringify(searchPackageObject(fields)),
    JSON.stringify(allPackagesSummary(fields)),
  ];
}
