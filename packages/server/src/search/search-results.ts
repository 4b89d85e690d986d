/**
 * The `/-/v1/search` response as bytes. Each result's `package` object was serialized when the
 * package was indexed, so a response is assembled from strings: no package JSON is parsed and
 * re-serialized per request. Everything but the response's time depends on the page alone, so
 * it is made once (the head) and a cached head only gets the time appended.
 */
import type { SearchResponse } from '@pkg/protocol';
import type { SearchHit, SearchPage } from './search-types.js';
import { searchScore } from './relevance.js';

/** The response up to its time: `{"objects": [...], "total": n, "time": "`. */
export function searchResponseHead(page: SearchPage): Buffer {
  return Buffer.from(`{"objects":[${page.hits.map(searchObjectJson).join(',')}],"total":${page.total},"time":"`);
}

/** The whole response: the head, then the time of the answer. */
export function searchResponseBody(head: Buffer, now: Date): Buffer {
  const tail = `${now.toISOString()}"}`;
  const body = Buffer.allocUnsafe(head.length + tail.length);
  head.copy(body);
  body.write(tail, head.length, 'latin1');
  return body;
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

/** The same response as objects, for in-process readers (the web pages); built from the bytes, so the two never differ. */
export function toSearchResponse(body: Buffer): SearchResponse {
  return JSON.parse(body.toString()) as SearchResponse;
}
