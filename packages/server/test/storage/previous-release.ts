/** Helpers for the upgrade tests, which take a database back to the schema of an older release. */
import { expect } from 'vitest';

/**
 * The index (the version in schema_migrations) of the one migration whose SQL contains
 * `marker`. Found by content, since later migrations are added after it release by release.
 */
export function migrationContaining(migrations: readonly unknown[], marker: string): number {
  const found = migrations.flatMap((m, index) => (typeof m === 'string' && m.includes(marker) ? [index] : []));
  expect(found, `one migration containing ${marker}`).toHaveLength(1);
  return found[0]!;
}
