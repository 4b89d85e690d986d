/** The pure parts of search: query parsing, scores, fields, download periods. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ProtocolError } from '@pkg/protocol';
import { buildStoredPackage } from '@pkg/testkit';
import { fillDays, parseDownloadPeriod } from '../../src/search/download-periods.js';
import { deriveSearchFields, personOf } from '../../src/search/search-fields.js';
import { parseSearchRequest, parseSearchText } from '../../src/search/search-query.js';
import { searchScore } from '../../src/search/relevance.js';
import { finalScore, maintenanceScore, popularityScore, qualityScore } from '../../src/search/scoring.js';
import { BudgetLru } from '../../src/storage/budget-lru.js';

const DAY_MS = 86_400_000;
const NOW = new Date('2025-06-01T00:00:00Z');

function badRequest(fn: () => unknown): ProtocolError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ProtocolError);
    expect((err as ProtocolError).code).toBe('BAD_REQUEST');
    return err as ProtocolError;
  }
  throw new Error('expected a BAD_REQUEST');
}

describe('parseSearchText', () => {
  it('splits terms and npm qualifiers, lowercased', () => {
    expect(parseSearchText('  Input  keywords:Physics,-Old author:Ann maintainer:BOB not:deprecated is:unstable ')).toEqual({
      terms: ['input'],
      keywords: { include: ['physics'], exclude: ['old'] },
      authors: ['ann'],
      maintainers: ['bob'],
      deprecated: false,
      unstable: true,
    });
  });

  it('keeps only letters and digits of short terms, and drops empty ones', () => {
    expect(parseSearchText('c# "ui" a. x').terms).toEqual(['c', 'ui', 'a', 'x']);
    expect(parseSearchText('c++ input-sys').terms).toEqual(['c++', 'input-sys']);
  });

  it('treats unknown prefixes with a colon as text', () => {
    expect(parseSearchText('com.vendor:tools').terms).toEqual(['com.vendor:tools']);
  });

  it('makes is:insecure match nothing and ignores boost-exact', () => {
    expect(parseSearchText('x is:insecure boost-exact:false')).toMatchObject({ terms: ['x'], insecure: true });
    expect(parseSearchText('x not:insecure').insecure).toBeUndefined();
  });

  it('reads engine filters, alone or with text, each engine once', () => {
    expect(parseSearchText('engine:Godot')).toMatchObject({ terms: [], engines: ['godot'] });
    expect(parseSearchText('dialogue engine:unreal engine:unity engine:unity')).toMatchObject({
      terms: ['dialogue'],
      engines: ['unreal', 'unity'],
    });
    expect(parseSearchText('dialogue').engines).toBeUndefined();
  });

  it('refuses empty, too long, too many terms, unknown flags and empty qualifiers', () => {
    for (const text of [
      '',
      '   ',
      '\u0000\u001f',
      '"',
      'a'.repeat(513),
      Array(17).fill('w').join(' '),
      'is:new',
      'author:',
      'engine:',
      'engine:cryengine',
    ]) {
      badRequest(() => parseSearchText(text));
    }
  });
});

describe('parseSearchRequest', () => {
  it('defaults size 20 and from 0, and accepts the edges', () => {
    expect(parseSearchRequest({ text: 'a1' })).toMatchObject({ size: 20, from: 0 });
    expect(parseSearchRequest({ text: 'a1', size: '0', from: '100000' })).toMatchObject({ size: 0, from: 100000 });
    expect(parseSearchRequest({ text: 'a1', size: '250' })).toMatchObject({ size: 250 });
  });

  it('refuses anything else as 400', () => {
    for (const raw of [
      {},
      { text: ['a', 'b'] },
      { text: 'a1', size: '251' },
      { text: 'a1', size: '-1' },
      { text: 'a1', size: '1e2' },
      { text: 'a1', size: ' 5' },
      { text: 'a1', from: '0x10' },
      { text: 'a1', from: '100001' },
      { text: 'a1', size: ['1', '2'] },
    ]) {
      badRequest(() => parseSearchRequest(raw));
    }
  });
});

describe('scores', () => {
  it('quality counts description, readme, license, keywords and repository', () => {
    const full = {
      name: 'com.a.b',
      description: 'A complete description',
      readme: 'r'.repeat(200),
      license: true,
      keywords: 3,
      repository: true,
    };
    expect(qualityScore(full)).toBe(1);
    expect(qualityScore({ ...full, description: '', readme: '', license: false, keywords: 0, repository: false })).toBe(0);
    expect(qualityScore({ ...full, description: 'short' })).toBe(0.875);
    expect(qualityScore({ ...full, readme: 'tiny' })).toBe(0.875);
    expect(qualityScore({ ...full, keywords: 1 })).toBe(0.9);
  });

  it('maintenance falls with time since the last release and rises with cadence', () => {
    const monthly = Array.from({ length: 6 }, (_, i) => NOW.getTime() - i * 30 * DAY_MS);
    expect(maintenanceScore(monthly, false, NOW)).toBe(1);
    expect(maintenanceScore([NOW.getTime() - 180 * DAY_MS], false, NOW)).toBeCloseTo(0.6 * 0.5 + 0.4 / 6, 6);
    expect(maintenanceScore([NOW.getTime() - 3 * 365 * DAY_MS], false, NOW)).toBeLessThan(0.1);
    expect(maintenanceScore(monthly, true, NOW)).toBe(0);
    expect(maintenanceScore([], false, NOW)).toBe(0);
  });

  it('popularity is log-scaled against the most downloaded package', () => {
    expect(popularityScore(0, 1000)).toBe(0);
    expect(popularityScore(1000, 1000)).toBe(1);
    expect(popularityScore(31, 1023)).toBeCloseTo(0.5, 6);
    expect(popularityScore(5, 0)).toBe(0);
  });

  it('keeps every score in [0, 1]', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 4e12 }), { maxLength: 30 }),
        fc.boolean(),
        fc.nat(),
        fc.nat(),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (times, deprecated, monthly, max, quality) => {
          const values = [
            maintenanceScore(times, deprecated, NOW),
            popularityScore(monthly, max),
            finalScore({
              quality,
              popularity: popularityScore(monthly, max),
              maintenance: maintenanceScore(times, deprecated, NOW),
            }),
          ];
          return values.every((v) => v >= 0 && v <= 1);
        },
      ),
    );
  });

  it('searchScore falls along the result order: tier first, deprecated last', () => {
    const live = [0, 1, 2, 3, 4].map((tier) => searchScore({ deprecated: false, tier, final: 0.5 }));
    expect(live).toEqual([...live].sort((a, b) => b - a));
    expect(searchScore({ deprecated: true, tier: 0, final: 1 })).toBeLessThanOrEqual(
      searchScore({ deprecated: false, tier: 4, final: 0 }),
    );
  });
});

describe('deriveSearchFields', () => {
  it('shows the latest dist-tag, or the highest version without one', () => {
    const pkg = buildStoredPackage('com.a.b', { versions: ['1.0.0', '2.0.0-beta.1', '1.5.0'], distTags: { latest: '1.5.0' } });
    expect(deriveSearchFields(pkg)!.version).toBe('1.5.0');
    const noLatest = buildStoredPackage('com.a.b', { versions: ['1.0.0', '1.5.0'], distTags: { beta: '1.0.0' } });
    expect(deriveSearchFields(noLatest)!.version).toBe('1.5.0');
  });

  it('is null for unpublished packages and packages without versions', () => {
    expect(deriveSearchFields(buildStoredPackage('com.a.b', { unpublished: true }))).toBeNull();
    const empty = buildStoredPackage('com.a.b');
    empty.document.versions = {};
    expect(deriveSearchFields(empty)).toBeNull();
  });

  it('reads authors as strings or objects', () => {
    expect(personOf('Ann Lee <ann@x.io> (https://ann.dev)')).toEqual({ name: 'Ann Lee', email: 'ann@x.io' });
    expect(personOf({ name: 'Bo', email: 'bo@x.io' })).toEqual({ name: 'Bo', email: 'bo@x.io' });
    expect(personOf('  ')).toBeUndefined();
    expect(personOf(42)).toBeUndefined();
    const fields = deriveSearchFields(buildStoredPackage('com.a.b', { author: { name: 'Bo', email: 'bo@x.io' } }))!;
    expect(fields.author).toBe('Bo <bo@x.io>');
    expect(fields.texts.author).toBe('bo bo@x.io');
  });

  it('takes the deprecation of the shown version only', () => {
    const old = buildStoredPackage('com.a.b', { versions: [{ version: '1.0.0', deprecated: 'old' }, '1.1.0'] });
    expect(deriveSearchFields(old)!.deprecated).toBeUndefined();
    const all = buildStoredPackage('com.a.b', { deprecated: 'gone' });
    expect(deriveSearchFields(all)!.deprecated).toBe('gone');
  });
});

describe('deriveSearchFields on any document', () => {
  // It runs inside every package write transaction: a field of an unexpected type must not
  // throw (and fail the publish), only be left out.
  it('never throws and always yields strings where the response needs them', () => {
    const fieldNames = [
      'description',
      'keywords',
      'author',
      'displayName',
      'license',
      'repository',
      'homepage',
      'bugs',
      'deprecated',
      'readme',
      '_npmUser',
      'maintainers',
      'dist-tags',
      'time',
    ];
    fc.assert(
      fc.property(
        fc.dictionary(fc.constantFrom(...fieldNames), fc.anything()),
        fc.dictionary(fc.constantFrom(...fieldNames), fc.anything()),
        (docFields, versionFields) => {
          const pkg = buildStoredPackage('com.any.thing', { versions: ['1.0.0', '2.0.0'] });
          Object.assign(pkg.document, docFields);
          Object.assign(pkg.document.versions['2.0.0']!, versionFields);
          const fields = deriveSearchFields(pkg);
          if (fields === null) return;
          for (const value of [fields.version, fields.description, fields.author, fields.date, fields.updated, fields.modified]) {
            expect(typeof value).toBe('string');
          }
          expect(fields.keywords.every((k) => typeof k === 'string')).toBe(true);
          for (const text of Object.values(fields.texts)) expect(typeof text).toBe('string');
          expect(fields.quality).toBeGreaterThanOrEqual(0);
          expect(fields.quality).toBeLessThanOrEqual(1);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('download periods', () => {
  it('names periods that end today (UTC)', () => {
    const now = new Date('2025-03-12T23:59:59Z');
    expect(parseDownloadPeriod('last-day', now)).toEqual({ start: '2025-03-12', end: '2025-03-12' });
    expect(parseDownloadPeriod('last-week', now)).toEqual({ start: '2025-03-06', end: '2025-03-12' });
    expect(parseDownloadPeriod('last-month', now)).toEqual({ start: '2025-02-11', end: '2025-03-12' });
    expect(parseDownloadPeriod('2024-02-29', now)).toEqual({ start: '2024-02-29', end: '2024-02-29' });
    expect(parseDownloadPeriod('2024-12-30:2025-01-02', now)).toEqual({ start: '2024-12-30', end: '2025-01-02' });
  });

  it('fills the days without downloads with zeros', () => {
    expect(fillDays({ start: '2024-12-31', end: '2025-01-02' }, [{ day: '2025-01-01', downloads: 4 }])).toEqual([
      { day: '2024-12-31', downloads: 0 },
      { day: '2025-01-01', downloads: 4 },
      { day: '2025-01-02', downloads: 0 },
    ]);
  });

  it('refuses malformed, reversed and too long periods', () => {
    for (const period of ['2023-02-29', 'last-hour', '2025-01-02:2025-01-01', '2023-01-01:2025-01-01', '20250101']) {
      badRequest(() => parseDownloadPeriod(period, NOW));
    }
  });
});

describe('BudgetLru', () => {
  it('evicts the least recently used entries beyond its weight budget', () => {
    const lru = new BudgetLru<string>(10);
    lru.set('a', 'A', 4);
    lru.set('b', 'B', 4);
    expect(lru.get('a')).toBe('A');
    lru.set('c', 'C', 4);
    expect(lru.get('b')).toBeUndefined();
    expect(lru.get('a')).toBe('A');
    expect(lru.get('c')).toBe('C');
    lru.set('huge', 'H', 11);
    expect(lru.get('huge')).toBeUndefined();
    lru.clear();
    expect(lru.size).toBe(0);
  });
});
