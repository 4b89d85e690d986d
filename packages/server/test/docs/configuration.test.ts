import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SETTINGS, envName } from '@pkg/server';

const doc = readFileSync(new URL('../../../../docs/configuration.md', import.meta.url), 'utf8');

/** The rows of the first table under `## Settings`, as cells with their code spans unwrapped. */
function settingsRows(): { key: string; env: string; flag: string; default: string | undefined }[] {
  const section = doc.split(/^## Settings$/m)[1]?.split(/^## /m)[0] ?? '';
  const rows = section.split('\n').filter((line) => /^\|\s*`/.test(line));
  return rows.map((line) => {
    const cells = line
      .split('|')
      .slice(1, -1)
      .map((c) => c.trim());
    const code = (cell: string | undefined) => /^`([^`]*)`/.exec(cell ?? '')?.[1];
    return { key: code(cells[0])!, env: code(cells[1])!, flag: code(cells[2])!, default: code(cells[3]) };
  });
}

describe('docs/configuration.md', () => {
  it('lists every setting of settings.ts, and only those, with its env var, flag and default', () => {
    const documented = settingsRows();
    expect(documented.map((r) => r.key)).toEqual(SETTINGS.map((s) => s.key));
    for (const spec of SETTINGS) {
      const row = documented.find((r) => r.key === spec.key)!;
      expect({ key: row.key, env: row.env, flag: row.flag, default: row.default }).toEqual({
        key: spec.key,
        env: envName(spec),
        flag: spec.flag,
        default: spec.default === undefined ? undefined : String(spec.default),
      });
    }
  });
});
