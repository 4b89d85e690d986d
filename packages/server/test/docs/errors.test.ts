import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ERROR_CATALOGUE } from '@pkg/protocol';

const doc = readFileSync(new URL('../../../../docs/errors.md', import.meta.url), 'utf8');

/** Rows of the table under `## Codes`: code, status, error text, and the "when" text. */
function documentedCodes(): { code: string; status: number; error: string; when: string }[] {
  const section = doc.split(/^## Codes$/m)[1]?.split(/^## /m)[0] ?? '';
  return section
    .split('\n')
    .filter((line) => /^\|\s*`/.test(line))
    .map((line) => {
      const cells = line
        .split('|')
        .slice(1, -1)
        .map((c) => c.trim());
      const unquote = (cell: string | undefined) => /^`([^`]*)`$/.exec(cell ?? '')?.[1] ?? '';
      return { code: unquote(cells[0]), status: Number(cells[1]), error: unquote(cells[2]), when: cells[3] ?? '' };
    });
}

describe('docs/errors.md', () => {
  it('documents every code of the catalogue, and only those, with its status and error text', () => {
    const documented = documentedCodes();
    expect(documented.map((row) => row.code)).toEqual(Object.keys(ERROR_CATALOGUE));
    for (const row of documented) {
      const entry = ERROR_CATALOGUE[row.code as keyof typeof ERROR_CATALOGUE];
      expect({ code: row.code, status: row.status, error: row.error }).toEqual({ code: row.code, ...entry });
    }
  });

  it('says when each code happens', () => {
    for (const row of documentedCodes()) expect(row.when.length, row.code).toBeGreaterThan(20);
  });
});
