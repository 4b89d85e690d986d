import { describe, expect, it } from 'vitest';
import { searchResponseJson, toSearchResponse } from '../../src/search/search-results.js';
import type { SearchHit, SearchPage } from '../../src/storage/ports.js';

function hit(name: string, extra: Partial<SearchHit> = {}): SearchHit {
  return {
    name,
    tier: 2,
    unstable: false,
    scores: { final: 0.5, detail: { quality: 0.75, popularity: 0.25, maintenance: 1 } },
    downloads: { weekly: 3, monthly: 12 },
    updated: '2030-01-02T03:04:05.678Z',
    modified: '2030-01-02T03:04:05.678Z',
    packageJson: JSON.stringify({ name, version: '1.2.3', description: `"${name}" — ünïcödé`, keywords: ['a', 'b'] }),
    ...extra,
  };
}

describe('searchResponseJson', () => {
  it('is byte for byte what JSON.stringify makes of the response object, search after search', () => {
    const page: SearchPage = {
      total: 42,
      hits: [hit('com.a.one'), hit('com.a.two', { deprecated: 'use com.a.three', unstable: true }), hit('com.a.three')],
    };
    const now = new Date('2030-05-06T07:08:09.010Z');
    const expected = JSON.stringify(toSearchResponse(page, now));
    expect(searchResponseJson(page, now)).toBe(expected);
    // Hits are serialized once and reused: a second search over the same (cached) hits agrees.
    expect(searchResponseJson(page, now)).toBe(expected);
    expect(searchResponseJson({ total: 0, hits: [] }, now)).toBe(JSON.stringify(toSearchResponse({ total: 0, hits: [] }, now)));
  });
});
