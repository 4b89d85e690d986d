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

/**
 * Hits come from the index's result cache as the same objects search after search: each is
 * serialized once. (Parsing and re-serializing twenty results cost more than the rest of a
 * cached search.)
 */
const serializedHits = new WeakMap<SearchHit, string>();

function searchObjectJson(hit: SearchHit): string {
  let json = serializedHits.get(hit);
  if (json === undefined) serializedHits.set(hit, (json = JSON.stringify(toSearchObject(hit))));
  return json;
}

/** `toSearchResponse` as JSON text, the same bytes JSON.stringify would give. */
export function searchResponseJson(page: SearchPage, now: Date): string {
  return `{"objects":[${page.hits.map(searchObjectJson).join(',')}],"total":${page.total},"time":${JSON.stringify(now.toISOString())}}`;
}
