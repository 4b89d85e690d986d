/**
 * The `/-/v1/search` response as JSON text. Each result's `package` object was serialized when
 * the package was indexed, so a response is assembled from strings: no package JSON is parsed
 * and re-serialized per request. The `objects` text of a page is kept with the page, so a page
 * the index serves from its cache (the same object) is not assembled twice.
 */
import type { SearchObject, SearchResponse } from '@pkg/protocol';
import type { SearchHit, SearchPage } from '../storage/ports.js';
import { searchScore } from './relevance.js';

const objectsText = new WeakMap<SearchPage, string>();

/** The whole response: `{"objects": [...], "total": n, "time": "<ISO>"}`. */
export function searchResponseJson(page: SearchPage, now: Date): string {
  let objects = objectsText.get(page);
  if (objects === undefined) {
    objects = `[${page.hits.map(searchObjectJson).join(',')}]`;
    objectsText.set(page, objects);
  }
  return `{"objects":${objects},"total":${page.total},"time":"${now.toISOString()}"}`;
}

/** One result in npm's current shape (see docs/search.md). */
export function searchObjectJson(hit: SearchHit): string {
  const { final, detail } = hit.scores;
  const flags = {
    insecure: 0,
    ...(hit.unstable ? { unstable: true } : {}),
    ...(hit.deprecated !== undefined ? { deprecated: hit.deprecated } : {}),
  };
  const score = searchScore({ deprecated: hit.deprecated !== undefined, tier: hit.tier, final });
  return (
    `{"package":${hit.packageJson},` +
    `"score":{"final":${final},"detail":{"quality":${detail.quality},"popularity":${detail.popularity},"maintenance":${detail.maintenance}}},` +
    `"searchScore":${score},` +
    `"downloads":{"weekly":${hit.downloads.weekly},"monthly":${hit.downloads.monthly}},` +
    `"updated":${JSON.stringify(hit.updated)},` +
    `"flags":${JSON.stringify(flags)},` +
    `"time":{"modified":${JSON.stringify(hit.modified)}}}`
  );
}

/** The same response as objects, for in-process readers (the web pages); built from the text, so the two never differ. */
export function toSearchResponse(page: SearchPage, now: Date): SearchResponse {
  return JSON.parse(searchResponseJson(page, now)) as SearchResponse;
}

export function toSearchObject(hit: SearchHit): SearchObject {
  return JSON.parse(searchObjectJson(hit)) as SearchObject;
}
