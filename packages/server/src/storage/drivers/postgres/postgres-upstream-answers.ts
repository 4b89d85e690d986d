import type pg from 'pg';
import { UPSTREAM_ANSWER_KEEP_MS, type UpstreamAnswer, type UpstreamAnswerStore } from '../../ports.js';
import type { PostgresPackageWriteHook } from './postgres-metadata-store.js';

export const POSTGRES_UPSTREAM_ANSWER_MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE upstream_answers (
    key text PRIMARY KEY,
    body bytea NOT NULL,
    fresh_until bigint NOT NULL,
    stored_at bigint NOT NULL
  );
  CREATE INDEX upstream_answers_stored_at ON upstream_answers (stored_at);
  `,
];

/**
 * Upstream answers in PostgreSQL: every node answers from what any node asked, also while the
 * upstream is down and after a restart. Keys are hashes (the caller's): no credentials stored.
 * Not a tenant's data: an upstream answers the same question the same for every registry.
 */
export class PostgresUpstreamAnswers implements UpstreamAnswerStore {
  #pool: pg.Pool | undefined;

  readonly writeHook: PostgresPackageWriteHook = {
    name: 'upstream-answers',
    migrations: POSTGRES_UPSTREAM_ANSWER_MIGRATIONS,
    onWrite: async () => undefined,
    onTenantDelete: async () => undefined,
  };

  attach(pool: pg.Pool): void {
    this.#pool = pool;
  }

  async get(keys: readonly string[]): Promise<Map<string, UpstreamAnswer>> {
    const found = new Map<string, UpstreamAnswer>();
    if (keys.length === 0) return found;
    const { rows } = await this.#requirePool().query<{ key: string; body: Buffer; fresh_until: string }>(
      'SELECT key, body, fresh_until FROM upstream_answers WHERE key = ANY($1::text[])',
      [keys],
    );
    for (const row of rows) found.set(row.key, { body: row.body, freshUntil: Number(row.fresh_until) });
    return found;
  }

  async put(answers: ReadonlyMap<string, UpstreamAnswer>, now: number): Promise<void> {
    const pool = this.#requirePool();
    if (answers.size > 0) {
      const entries = [...answers];
      await pool.query(
        `INSERT INTO upstream_answers (key, body, fresh_until, stored_at)
         SELECT key, body, fresh_until, $4 FROM unnest($1::text[], $2::bytea[], $3::bigint[]) AS a(key, body, fresh_until)
         ON CONFLICT (key) DO UPDATE SET body = excluded.body, fresh_until = excluded.fresh_until, stored_at = excluded.stored_at`,
        [entries.map(([key]) => key), entries.map(([, a]) => a.body), entries.map(([, a]) => a.freshUntil), now],
      );
    }
    await pool.query('DELETE FROM upstream_answers WHERE stored_at < $1', [now - UPSTREAM_ANSWER_KEEP_MS]);
  }

  #requirePool(): pg.Pool {
    if (!this.#pool) throw new Error('PostgresUpstreamAnswers is not attached to a pool');
    return this.#pool;
  }
}
