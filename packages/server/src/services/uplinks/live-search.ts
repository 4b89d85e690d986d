import type { Uplink, UplinkRules } from '../../config/uplink-config.js';
import type { UpstreamClient } from './upstream-client.js';

/** One search result as npm's `/-/v1/search` shapes it (only the name is relied on). */
interface SearchObject {
  package: { name: string };
  [field: string]: unknown;
}

/** Largest upstream search response accepted. */
const MAX_SEARCH_BYTES = 4 * 1024 * 1024;

/**
 * The local search response with the live results of the uplinks that opted in (`search: true`)
 * after the local ones, filling the page up to `size`. Only results whose names the same uplink
 * covers are taken (an upstream cannot put a local name into our results), each name once. An
 * uplink that fails, times out or answers nonsense adds nothing: search never fails for it.
 */
export async function withLiveResults(
  local: Buffer,
  request: { text: string; size: number; from: number },
  rules: UplinkRules,
  client: UpstreamClient,
  usable: (uplink: Uplink) => boolean,
  onResult: (uplink: Uplink, ok: boolean) => void,
): Promise<Buffer> {
  const response = JSON.parse(local.toString('utf8')) as { objects: SearchObject[]; total: number; time: string };
  const room = request.size - response.objects.length;
  if (room <= 0) return local;
  // Upstream pages continue where the local results end.
  const from = Math.max(0, request.from - response.total);
  const searched = await Promise.all(
    rules.searching.filter(usable).map(async (uplink) => {
      const query = new URLSearchParams({ text: request.text, size: String(room), from: String(from) });
      const result = await client.get({
        url: `${uplink.url}/-/v1/search?${query.toString()}`,
        timeoutMs: uplink.timeoutMs,
        authorization: uplink.authorization,
        maxBytes: MAX_SEARCH_BYTES,
        compressed: true,
      });
      const objects = result.kind === 'ok' ? objectsOf(result.body) : undefined;
      onResult(uplink, objects !== undefined);
      return (objects ?? []).filter((object) => rules.match(object.package.name) === uplink);
    }),
  );
  const seen = new Set(response.objects.map((object) => object.package.name));
  const added: SearchObject[] = [];
  for (const object of searched.flat()) {
    if (added.length >= room) break;
    if (seen.has(object.package.name)) continue;
    seen.add(object.package.name);
    added.push(object);
  }
  if (added.length === 0) return local;
  return Buffer.from(
    JSON.stringify({ objects: [...response.objects, ...added], total: response.total + added.length, time: response.time }),
  );
}

function objectsOf(body: Buffer): SearchObject[] | undefined {
  try {
    const parsed = JSON.parse(body.toString('utf8')) as { objects?: unknown };
    if (!Array.isArray(parsed.objects)) return undefined;
    return parsed.objects.filter(
      (object): object is SearchObject =>
        typeof object === 'object' && object !== null && typeof (object as SearchObject).package?.name === 'string',
    );
  } catch {
    return undefined;
  }
}
