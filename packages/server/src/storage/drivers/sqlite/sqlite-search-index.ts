import type Database from 'better-sqlite3';
import { deriveSearchFields, maintainerKeys } from '../../../search/search-fields.js';
import { allPackagesSummary, searchPackageObject, serializedSearchDocuments } from '../../../search/search-documents.js';
import type { SearchQuery } from '../../../search/search-query.js';
import { scorePackage, scoreWrittenPackage } from '../../../search/scoring.js';
import { addDays, utcDay } from '../../../search/utc-days.js';
import type { PackageSummary, SearchHit, SearchIndex, SearchPage, StoredPackage, TenantId } from '../../ports.js';
import { AttachedDatabase } from './attached-database.js';
import { toStoredPackage, type SqliteMigration, type SqlitePackageWriteHook } from './sqlite-metadata-store.js';
import { listKey, partsKey } from '../../../search/search-keys.js';
import { compileSearch, tenantIdRange, type CompiledSearch } from './sqlite-search-sql.js';

type Db = Database.Database;
type Statement = Database.Statement;

/**
 * The search index: small ranking rows (`search_packages`), what results show, serialized at
 * index time (`search_documents`), and two contentless FTS5 indexes over the searchable texts:
 * trigrams (`search_fts`) find substrings of three characters or more, words with one- and
 * two-character prefixes (`search_words`) find shorter terms at the start of a word.
 */
export const SEARCH_MIGRATIONS: readonly SqliteMigration[] = [
  `
  CREATE TABLE search_tenants (
    tenant TEXT PRIMARY KEY,
    num INTEGER NOT NULL UNIQUE
  );
  INSERT INTO search_tenants (tenant, num) VALUES ('', 0);
  CREATE TABLE search_packages (
    -- In the tenant's id range (sqlite-search-sql.ts tenantIdRange).
    id INTEGER PRIMARY KEY,
    tenant TEXT NOT NULL,
    name TEXT NOT NULL,
    display_lc TEXT NOT NULL,
    parts_key TEXT NOT NULL,
    keywords_key TEXT NOT NULL,
    author_lc TEXT NOT NULL,
    maintainers_key TEXT NOT NULL,
    deprecated INTEGER NOT NULL,
    unstable INTEGER NOT NULL,
    final REAL NOT NULL,
    quality REAL NOT NULL,
    popularity REAL NOT NULL,
    maintenance REAL NOT NULL,
    downloads_week INTEGER NOT NULL DEFAULT 0,
    downloads_month INTEGER NOT NULL DEFAULT 0,
    deprecated_message TEXT,
    updated TEXT NOT NULL,
    modified TEXT NOT NULL,
    release_times TEXT NOT NULL,
    UNIQUE (tenant, name)
  );
  CREATE INDEX search_packages_by_rank ON search_packages (tenant, deprecated, final DESC, name);
  CREATE INDEX search_packages_by_downloads ON search_packages (tenant, downloads_month);
  CREATE TABLE search_documents (
    id INTEGER PRIMARY KEY,
    package_json TEXT NOT NULL,
    summary_json TEXT NOT NULL
  );
  CREATE VIRTUAL TABLE search_fts USING fts5(
    name, display, keywords, description, author, maintainers,
    tokenize = 'trigram', content = '', contentless_delete = 1
  );
  CREATE VIRTUAL TABLE search_words USING fts5(
    name, display, keywords, description, author, maintainers,
    tokenize = 'unicode61 remove_diacritics 0', prefix = '1 2', content = '', contentless_delete = 1
  );
  `,
  // The day of the last full refresh of a tenant's scores (a restart the same day skips it).
  `ALTER TABLE search_tenants ADD COLUMN refreshed_day TEXT;`,
  // ranked(): newest publishes and most downloaded first, read in index order.
  `
  CREATE INDEX search_packages_by_updated ON search_packages (tenant, updated DESC, name);
  CREATE INDEX search_packages_by_popularity ON search_packages (tenant, downloads_month DESC, name);
  `,
  // Search objects gained `engines`: packages indexed before show them without a new publish.
  rewriteSearchDocuments,
  // Unity's engine entry gained `signature` (issue 30): packages indexed before show it without a new publish.
  rewriteSearchDocuments,
  // by_popularity answers every query by_downloads did (the tenant's largest month, the most
  // downloaded first), and each index on downloads_month is rewritten by every refresh of a
  // downloaded package's row.
  `DROP INDEX search_packages_by_downloads;`,
];

const REWRITE_CHUNK = 500;

/** Serializes every indexed package's search shapes again from its stored document. */
function rewriteSearchDocuments(db: Db): void {
  const read = db.prepare(
    `SELECT s.id, p.document, p.published_versions, p.unpublished
     FROM search_packages s JOIN packages p ON p.tenant = s.tenant AND p.name = s.name
     WHERE s.id > ? ORDER BY s.id LIMIT ?`,
  );
  const write = db.prepare('UPDATE search_documents SET package_json = ?, summary_json = ? WHERE id = ?');
  // In chunks: a large registry's documents are never all in memory at once.
  for (let after = 0; ;) {
    const rows = read.all(after, REWRITE_CHUNK) as {
      id: number;
      document: string;
      published_versions: string;
      unpublished: number;
    }[];
    if (rows.length === 0) break;
    for (const row of rows) {
      const documents = serializedSearchDocuments(toStoredPackage(row));
      if (documents) write.run(documents.packageJson, documents.summaryJson, row.id);
    }
    after = rows[rows.length - 1]!.id;
  }
}

export interface SqliteSearchIndexOptions {
  /** Clock for the scores computed when a package is written. */
  now?: () => Date;
}

const REFRESH_CHUNK = 2000;
/**
 * Packages named (the downloaded ones) whose windows and scores are refreshed in one transaction;
 * requests run between two transactions. Each package rewrites a few pages (its row, its entries
 * in two indexes), which the commit writes to the log: with 100 a transaction held the event loop
 * for tens of milliseconds, with 25 a few (bench/score-refresh.js; bench/README.md, Stop 39).
 */
const NAMED_REFRESH_CHUNK = 25;
const MAX_PREPARED_SHAPES = 256;

interface SearchStatements {
  page: Statement;
  count: Statement;
  firstPages: Statement[];
}

interface PageRow {
  tier: number;
  name: string;
  deprecated_message: string | null;
  unstable: number;
  final: number;
  quality: number;
  popularity: number;
  maintenance: number;
  downloads_week: number;
  downloads_month: number;
  updated: string;
  modified: string;
  package_json: string;
}

interface ScoreRow {
  id: number;
  quality: number;
  release_times: string;
  deprecated: number;
  downloads_month: number;
  final: number;
  popularity: number;
  maintenance: number;
}

/**
 * The SQLite search index. Its write hook keeps the index in the package's own write
 * transaction; the queries follow search/relevance.ts. It tells when its results change (a
 * write of this process, or any commit of another process: data_version), so that the search
 * service can keep responses until then.
 */
export class SqliteSearchIndex implements SearchIndex {
  readonly #db = new AttachedDatabase('SqliteSearchIndex');
  readonly #now: () => Date;
  readonly #shapes = new Map<string, SearchStatements>();
  /** Tenant numbers never change once given, so they are remembered. */
  readonly #tenantNumbers = new Map<TenantId, number>();
  #dataVersion = -1;
  /** Bumped by every change this process makes or sees (resultsVersion). */
  #version = 0;

  readonly writeHook: SqlitePackageWriteHook = {
    name: 'search',
    migrations: SEARCH_MIGRATIONS,
    onWrite: (db, tenant, name, pkg) => this.#index(db, tenant, name, pkg),
    onTenantDelete: (db, tenant) => this.#dropTenant(db, tenant),
  };

  constructor(options: SqliteSearchIndexOptions = {}) {
    this.#now = options.now ?? (() => new Date());
  }

  /** Binds the index to the metadata store's connection (the one its write hook runs on). */
  attach(db: Db): void {
    this.#db.attach(db);
  }

  async search(tenant: TenantId, query: SearchQuery, page: { size: number; from: number }): Promise<SearchPage> {
    if (query.insecure) return { total: 0, hits: [] };
    const range = this.#tenantRange(tenant, false);
    if (!range) return { total: 0, hits: [] };
    const compiled = compileSearch(query);
    const statements = this.#shape(compiled);
    const params = { ...compiled.params, ...range, limit: page.size, offset: page.from };
    let rows: PageRow[] = [];
    if (page.size > 0) {
      for (const shortcut of statements.firstPages) {
        rows = shortcut.all(params) as PageRow[];
        if (rows.length === page.size) break;
      }
      if (rows.length < page.size) rows = statements.page.all(params) as PageRow[];
    }
    // A page that is neither full nor empty ends the matches: it tells the total by itself.
    const total = rows.length > 0 && rows.length < page.size ? page.from + rows.length : (statements.count.get(params) as number);
    return { total, hits: rows.map(toHit) };
  }

  async listSummaries(tenant: TenantId, after: string | null, limit: number): Promise<PackageSummary[]> {
    const rows = this.#db
      .statement(
        `SELECT p.name, d.summary_json FROM search_packages p JOIN search_documents d ON d.id = p.id
       WHERE p.tenant = ? AND p.name > ? ORDER BY p.name LIMIT ?`,
      )
      .all(tenant, after ?? '', limit) as { name: string; summary_json: string }[];
    return rows.map((row) => ({ name: row.name, summaryJson: row.summary_json }));
  }

  async ranked(tenant: TenantId, order: 'updated' | 'downloads', page: { size: number; from: number }): Promise<SearchPage> {
    const filter = order === 'downloads' ? 'AND p.downloads_month > 0' : '';
    const orderBy = order === 'downloads' ? 'p.downloads_month DESC, p.name' : 'p.updated DESC, p.name';
    const rows = this.#db
      .statement(
        `SELECT 0 AS tier, p.name, p.deprecated_message, p.unstable, p.final, p.quality, p.popularity, p.maintenance,
         p.downloads_week, p.downloads_month, p.updated, p.modified, d.package_json
       FROM search_packages p JOIN search_documents d ON d.id = p.id
       WHERE p.tenant = ? ${filter} ORDER BY ${orderBy} LIMIT ? OFFSET ?`,
      )
      .all(tenant, page.size, page.from) as PageRow[];
    const total = this.#db
      .statement(`SELECT count(*) FROM search_packages p WHERE p.tenant = ? ${filter}`)
      .pluck()
      .get(tenant) as number;
    return { total, hits: rows.map(toHit) };
  }

  async refreshScores(tenant: TenantId, names: readonly string[] | null, now: Date): Promise<boolean> {
    const db = this.#db.require();
    const today = utcDay(now);
    const window = { tenant, today, weekStart: addDays(today, -6), monthStart: addDays(today, -29) };
    let changed = 0;
    if (names === null) {
      changed += db.transaction(() => this.#refreshAllWindows(window)).immediate();
      let after = 0;
      for (;;) {
        // Read and rescore in one transaction: another process's publish cannot slip between.
        const last = db
          .transaction(() => {
            const rows = this.#db
              .statement(
                `SELECT id, quality, release_times, deprecated, downloads_month, final, popularity, maintenance
               FROM search_packages WHERE tenant = ? AND id > ? ORDER BY id LIMIT ?`,
              )
              .all(tenant, after, REFRESH_CHUNK) as ScoreRow[];
            changed += this.#rescore(tenant, rows, now);
            return rows[rows.length - 1]?.id;
          })
          .immediate();
        if (last === undefined) break;
        after = last;
        // Let requests run between chunks: a large registry is rescored without a long pause.
        await new Promise((resolve) => setImmediate(resolve));
      }
      this.#db.statement('UPDATE search_tenants SET refreshed_day = ? WHERE tenant = ?').run(today, tenant);
    } else {
      for (let i = 0; i < names.length; i += NAMED_REFRESH_CHUNK) {
        if (i > 0) await new Promise((resolve) => setImmediate(resolve));
        const chunk = JSON.stringify(names.slice(i, i + NAMED_REFRESH_CHUNK));
        db.transaction(() => {
          // A statement per chunk, not per package: unchanged windows are not written (the
          // update would rewrite the row's index entries).
          changed += this.#db
            .statement(
              // The named packages drive the join (CROSS JOIN keeps them outside): planned freely,
              // SQLite scanned every row of the tenant for each chunk.
              `UPDATE search_packages AS p SET downloads_week = s.week, downloads_month = s.month
               FROM (SELECT q.id,
                            coalesce(sum(CASE WHEN c.day >= @weekStart THEN c.count ELSE 0 END), 0) AS week,
                            coalesce(sum(c.count), 0) AS month
                       FROM json_each(@names) AS n
                       CROSS JOIN search_packages AS q ON q.tenant = @tenant AND q.name = n.value
                       LEFT JOIN download_counts AS c
                         ON c.tenant = @tenant AND c.name = n.value AND c.day BETWEEN @monthStart AND @today
                      GROUP BY q.id) AS s
               WHERE p.id = s.id AND (p.downloads_week != s.week OR p.downloads_month != s.month)`,
            )
            .run({ ...window, names: chunk }).changes;
          const rows = this.#db
            .statement(
              `SELECT id, quality, release_times, deprecated, downloads_month, final, popularity, maintenance
               FROM search_packages WHERE tenant = ? AND name IN (SELECT value FROM json_each(?))`,
            )
            .all(tenant, chunk) as ScoreRow[];
          changed += this.#rescore(tenant, rows, now);
        }).immediate();
      }
    }
    // A refresh that wrote nothing leaves every kept search response true.
    if (changed > 0) this.#version++;
    return changed > 0;
  }

  async scoresRefreshedOn(tenant: TenantId): Promise<string | null> {
    const day = this.#db.statement('SELECT refreshed_day FROM search_tenants WHERE tenant = ?').pluck().get(tenant) as
      string | null | undefined;
    return day ?? null;
  }

  /** Rows written: the windows of every package of the tenant. */
  #refreshAllWindows(window: { tenant: string; today: string; weekStart: string; monthStart: string }): number {
    // Only rows whose windows change are written (as on PostgreSQL): zeroed, the packages with no
    // count left in the month; set, the others whose sums differ.
    let changed = this.#db
      .statement(
        `UPDATE search_packages SET downloads_week = 0, downloads_month = 0
       WHERE tenant = @tenant AND (downloads_week != 0 OR downloads_month != 0)
         AND NOT EXISTS (SELECT 1 FROM download_counts c
                         WHERE c.tenant = @tenant AND c.name = search_packages.name AND c.day BETWEEN @monthStart AND @today)`,
      )
      .run({ tenant: window.tenant, monthStart: window.monthStart, today: window.today }).changes;
    const sums = this.#db
      .statement(
        `SELECT name, sum(CASE WHEN day >= @weekStart THEN count ELSE 0 END) AS week, sum(count) AS month
       FROM download_counts WHERE tenant = @tenant AND day BETWEEN @monthStart AND @today GROUP BY name`,
      )
      .all(window) as { name: string; week: number; month: number }[];
    const update = this.#db.statement(
      `UPDATE search_packages SET downloads_week = @week, downloads_month = @month
       WHERE tenant = @tenant AND name = @name AND (downloads_week != @week OR downloads_month != @month)`,
    );
    for (const row of sums)
      changed += update.run({ week: row.week, month: row.month, tenant: window.tenant, name: row.name }).changes;
    return changed;
  }

  /** Rescores `rows`, writing those whose scores change; returns how many it wrote. */
  #rescore(tenant: TenantId, rows: ScoreRow[], now: Date): number {
    const max =
      (this.#db.statement('SELECT max(downloads_month) FROM search_packages WHERE tenant = ?').pluck().get(tenant) as
        number | null) ?? 0;
    const update = this.#db.statement('UPDATE search_packages SET final = ?, popularity = ?, maintenance = ? WHERE id = ?');
    let written = 0;
    for (const row of rows) {
      const scores = scorePackage(
        {
          quality: row.quality,
          releaseTimes: JSON.parse(row.release_times) as number[],
          deprecated: row.deprecated === 1,
          monthlyDownloads: row.downloads_month,
          maxMonthlyDownloads: max,
        },
        now,
      );
      const { popularity, maintenance } = scores.detail;
      if (scores.final !== row.final || popularity !== row.popularity || maintenance !== row.maintenance) {
        written += update.run(scores.final, popularity, maintenance, row.id).changes;
      }
    }
    return written;
  }

  #index(db: Db, tenant: TenantId, name: string, pkg: StoredPackage): void {
    this.#checkDb(db);
    this.#version++;
    const fields = deriveSearchFields(pkg);
    const existing = this.#db
      .statement('SELECT id, downloads_month FROM search_packages WHERE tenant = ? AND name = ?')
      .get(tenant, name) as { id: number; downloads_month: number } | undefined;
    if (fields === null) {
      if (existing) this.#remove(existing.id);
      return;
    }
    const monthly = existing?.downloads_month ?? 0;
    const max =
      (this.#db.statement('SELECT max(downloads_month) FROM search_packages WHERE tenant = ?').pluck().get(tenant) as
        number | null) ?? 0;
    const scores = scoreWrittenPackage(fields, monthly, max, this.#now());
    const range = this.#tenantRange(tenant, true)!;
    const lastId = this.#db
      .statement('SELECT max(id) FROM search_packages WHERE id BETWEEN ? AND ?')
      .pluck()
      .get(range.lo, range.hi) as number | null;
    const id = this.#db
      .statement(
        `INSERT INTO search_packages (id, tenant, name, display_lc, parts_key, keywords_key, author_lc, maintainers_key,
         deprecated, unstable, final, quality, popularity, maintenance, deprecated_message, updated, modified, release_times)
       VALUES (@id, @tenant, @name, @display_lc, @parts_key, @keywords_key, @author_lc, @maintainers_key,
         @deprecated, @unstable, @final, @quality, @popularity, @maintenance, @deprecated_message, @updated, @modified, @release_times)
       ON CONFLICT (tenant, name) DO UPDATE SET display_lc = excluded.display_lc, parts_key = excluded.parts_key,
         keywords_key = excluded.keywords_key, author_lc = excluded.author_lc, maintainers_key = excluded.maintainers_key,
         deprecated = excluded.deprecated, unstable = excluded.unstable, final = excluded.final, quality = excluded.quality,
         popularity = excluded.popularity, maintenance = excluded.maintenance,
         deprecated_message = excluded.deprecated_message, updated = excluded.updated, modified = excluded.modified,
         release_times = excluded.release_times
       RETURNING id`,
      )
      .pluck()
      .get({
        id: existing?.id ?? (lastId ?? range.lo - 1) + 1,
        tenant,
        name,
        display_lc: fields.texts.displayName,
        parts_key: partsKey(fields.texts.name, fields.texts.displayName),
        keywords_key: listKey(fields.keywords.map((k) => k.toLowerCase())),
        author_lc: fields.texts.author,
        maintainers_key: listKey(maintainerKeys(fields)),
        deprecated: fields.deprecated !== undefined ? 1 : 0,
        unstable: fields.unstable ? 1 : 0,
        final: scores.final,
        quality: scores.detail.quality,
        popularity: scores.detail.popularity,
        maintenance: scores.detail.maintenance,
        deprecated_message: fields.deprecated ?? null,
        updated: fields.updated,
        modified: fields.modified,
        release_times: JSON.stringify(fields.releaseTimes),
      }) as number;
    const { texts } = fields;
    const columns = [texts.name, texts.displayName, texts.keywords, texts.description, texts.author, texts.maintainers];
    for (const table of ['search_fts', 'search_words']) {
      this.#db.statement(`DELETE FROM ${table} WHERE rowid = ?`).run(id);
      this.#db
        .statement(
          `INSERT INTO ${table} (rowid, name, display, keywords, description, author, maintainers) VALUES (?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(id, ...columns);
    }
    this.#db
      .statement('INSERT OR REPLACE INTO search_documents (id, package_json, summary_json) VALUES (?, ?, ?)')
      .run(id, JSON.stringify(searchPackageObject(fields)), JSON.stringify(allPackagesSummary(fields)));
  }

  #remove(id: number): void {
    this.#db.statement('DELETE FROM search_fts WHERE rowid = ?').run(id);
    this.#db.statement('DELETE FROM search_words WHERE rowid = ?').run(id);
    this.#db.statement('DELETE FROM search_documents WHERE id = ?').run(id);
    this.#db.statement('DELETE FROM search_packages WHERE id = ?').run(id);
  }

  #dropTenant(db: Db, tenant: TenantId): void {
    this.#checkDb(db);
    this.#version++;
    this.#db.statement('DELETE FROM search_fts WHERE rowid IN (SELECT id FROM search_packages WHERE tenant = ?)').run(tenant);
    this.#db.statement('DELETE FROM search_words WHERE rowid IN (SELECT id FROM search_packages WHERE tenant = ?)').run(tenant);
    this.#db.statement('DELETE FROM search_documents WHERE id IN (SELECT id FROM search_packages WHERE tenant = ?)').run(tenant);
    this.#db.statement('DELETE FROM search_packages WHERE tenant = ?').run(tenant);
  }

  /** The tenant's id range; a tenant gets its number with its first indexed package. */
  #tenantRange(tenant: TenantId, create: boolean): { lo: number; hi: number } | undefined {
    let num = this.#tenantNumbers.get(tenant);
    if (num === undefined) {
      num = this.#db.statement('SELECT num FROM search_tenants WHERE tenant = ?').pluck().get(tenant) as number | undefined;
      if (num !== undefined) this.#tenantNumbers.set(tenant, num);
      else if (create) {
        // Inside the package's write transaction: remembered only once committed (read back later).
        num = this.#db
          .statement(
            'INSERT INTO search_tenants (tenant, num) SELECT ?, coalesce(max(num), 0) + 1 FROM search_tenants RETURNING num',
          )
          .pluck()
          .get(tenant) as number;
      } else return undefined;
    }
    return tenantIdRange(num);
  }

  resultsVersion(): number {
    // Changes only when another connection (another server process) committed.
    const dataVersion = this.#db.statement('PRAGMA data_version').pluck().get() as number;
    if (dataVersion !== this.#dataVersion) {
      this.#dataVersion = dataVersion;
      this.#version++;
    }
    return this.#version;
  }

  #shape(compiled: CompiledSearch): SearchStatements {
    let shape = this.#shapes.get(compiled.key);
    if (!shape) {
      const db = this.#db.require();
      shape = {
        page: db.prepare(compiled.pageSql),
        count: db.prepare(compiled.countSql).pluck(),
        firstPages: compiled.firstPages.map((sql) => db.prepare(sql)),
      };
      if (this.#shapes.size >= MAX_PREPARED_SHAPES) this.#shapes.delete(this.#shapes.keys().next().value!);
      this.#shapes.set(compiled.key, shape);
    }
    return shape;
  }

  #checkDb(db: Db): void {
    if (!this.#db.is(db)) throw new Error('SqliteSearchIndex is attached to another database');
  }
}

function toHit(row: PageRow): SearchHit {
  return {
    name: row.name,
    tier: row.tier,
    ...(row.deprecated_message !== null ? { deprecated: row.deprecated_message } : {}),
    unstable: row.unstable === 1,
    scores: {
      final: row.final,
      detail: { quality: row.quality, popularity: row.popularity, maintenance: row.maintenance },
    },
    downloads: { weekly: row.downloads_week, monthly: row.downloads_month },
    updated: row.updated,
    modified: row.modified,
    packageJson: row.package_json,
  };
}
