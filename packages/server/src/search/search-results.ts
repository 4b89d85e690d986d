import type { SearchObject, SearchResponse } from '@pkg/protocol';
import type { SearchHit, SearchPage } from '../storage/ports.js';
import { searchScore } from './relevance.js';

/** One result in npm's current `/-/v1/search` shape. */
export function toSearchObject(hit: SearchHit): SearchObject {
  return {
    package: JSON.parse(hit.packageJson) as SearchObject['package'],
    score: hit.scores,
    searchScore: searchScore({ deprecated: hit.deprecated !== undefined, tier: hit.tier, final: hit.scores.final }),
    downloads: hit.downloads,
    updated: hit.updated,
    flags: {
      insecure: 0,
      ...(hit.unstable ? { unstable: true as const } : {}),
      ...(hit.deprecated !== undefined ? { deprecated: hit.deprecated } : {}),
    },
    time: { modified: hit.modified },
  };
}

export function toSearchResponse(page: SearchPage, now: Date): SearchResponse {
  return { objects: page.hits.map(toSearchObject), total: page.total, time: now.toISOString() };
}
