/** The SQLite search statements are prepared once per query shape: a shape must fix the SQL. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseSearchText } from '../../src/search/search-query.js';
import { compileSearch } from '../../src/storage/drivers/sqlite/sqlite-search-sql.js';

const token = fc.oneof(
  fc.constantFrom('ui', 'a', 'shader', 'com.acme', 'input-sys', 'c++', 'x1', 'déjà', 'ab.c', '"q"'),
  fc.constantFrom('keywords:ui', 'keywords:a,-b', 'keywords:shader,ui', 'author:an', 'author:anne', 'maintainer:bob'),
  fc.constantFrom('maintainer:b@x.io', 'is:deprecated', 'not:deprecated', 'is:unstable', 'not:unstable', 'keywords:c#'),
);

describe('compileSearch', () => {
  it('gives equal SQL for equal keys', () => {
    const byKey = new Map<string, string>();
    fc.assert(
      fc.property(fc.array(token, { minLength: 1, maxLength: 5 }), (tokens) => {
        const text = tokens.join(' ');
        let compiled;
        try {
          compiled = compileSearch(parseSearchText(text));
        } catch {
          return;
        }
        const sql = [compiled.pageSql, compiled.countSql, ...compiled.firstPages].join('\n;\n');
        const seen = byKey.get(compiled.key);
        if (seen !== undefined) expect(sql, `${text} (${compiled.key})`).toBe(seen);
        else byKey.set(compiled.key, sql);
      }),
      { numRuns: 500 },
    );
  });

  it('binds every value: the SQL text holds no search input', () => {
    const compiled = compileSearch(parseSearchText(`zzinjected'x keywords:qqvalue author:"wwauthor"`));
    const sql = [compiled.pageSql, compiled.countSql, ...compiled.firstPages].join('\n');
    for (const value of ['zzinjected', 'qqvalue', 'wwauthor']) expect(sql).not.toContain(value);
  });
});
