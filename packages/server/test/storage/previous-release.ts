/** Helpers for the upgrade tests, which take a database back to the schema of an older release. */
import pg from 'pg';
import { expect } from 'vitest';
import { testPostgresUrl } from '@pkg/testkit';

/**
 * The index (the version in schema_migrations) of the one migration whose SQL contains
 * `marker`. Found by content, since later migrations are added after it release by release.
 */
export function migrationContaining(migrations: readonly unknown[], marker: string): number {
  const found = migrations.flatMap((m, index) => (typeof m === 'string' && m.includes(marker) ? [index] : []));
  expect(found, `one migration containing ${marker}`).toHaveLength(1);
  return found[0]!;
}

/** Runs `statements` (text, or text with its parameters) in order, in the PostgreSQL schema of a test. */
export async function inPostgresSchema(schema: string, statements: (string | [string, unknown[]])[]): Promise<void> {
  const client = new pg.Client({ connectionString: testPostgresUrl });
  await client.connect();
  try {
    await client.query(`SET search_path = "${schema}"`);
    for (const statement of statements) {
      if (typeof statement === 'string') await client.query(statement);
      else await client.query(...statement);
    }
  } finally {
    await client.end();
  }
}
