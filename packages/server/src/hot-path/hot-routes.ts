import { checkPackageName, type PackageName } from '@pkg/protocol';

/**
 * The route fastify would match, as the request steps read it (request.routeOptions): its
 * pattern and no flags (none of these routes is open to all or unmetered). One per route.
 */
interface HotRouteOptions<Pattern extends string> {
  readonly url: Pattern;
  readonly config: undefined;
}

const DOCUMENT: HotRouteOptions<'/:name'> = { url: '/:name', config: undefined };
const FILE: HotRouteOptions<'/:name/-/:file'> = { url: '/:name/-/:file', config: undefined };
const WHOAMI_ROUTE: HotRouteOptions<'/-/whoami'> = { url: '/-/whoami', config: undefined };
const SEARCH_ROUTE: HotRouteOptions<'/-/v1/search'> = { url: '/-/v1/search', config: undefined };

/** The requests the hot path answers itself, with the route fastify would match. */
export type HotRoute =
  | { kind: 'document'; options: typeof DOCUMENT; name: PackageName }
  | { kind: 'file'; options: typeof FILE; name: PackageName; file: string }
  | { kind: 'whoami'; options: typeof WHOAMI_ROUTE }
  | { kind: 'search'; options: typeof SEARCH_ROUTE; query: string };

const WHOAMI: HotRoute = { kind: 'whoami', options: WHOAMI_ROUTE };
const SEARCH = '/-/v1/search';

/** Fastify's maxParamLength: a longer segment is its 400, so such URLs are left to it. */
const MAX_SEGMENT = 500;

/**
 * Which hot route a GET's URL is, or undefined for everything the hot path leaves to fastify:
 * a query string or fragment, percent-encoding, a trailing slash, an invalid package name (fastify answers
 * those, with the errors users know), and paths that a route of their own serves (`staticPaths`,
 * e.g. `/favicon.ico`, which looks like a package name).
 */
export function hotRouteOf(url: string, staticPaths: ReadonlySet<string>): HotRoute | undefined {
  if (url === '/-/whoami') return WHOAMI;
  if (url.startsWith(SEARCH) && (url.length === SEARCH.length || url[SEARCH.length] === '?')) {
    // The query as fastify's router reads it; a fragment or `;` is left to the router.
    if (url.includes('#') || url.includes(';')) return undefined;
    return { kind: 'search', options: SEARCH_ROUTE, query: url.slice(SEARCH.length + 1) };
  }
  if (url.includes('?') || url.includes('#') || url.includes('%') || staticPaths.has(url)) return undefined;
  const slash = url.indexOf('/', 1);
  const name = packageName(url.slice(1, slash === -1 ? undefined : slash));
  if (name === undefined) return undefined;
  if (slash === -1) return { kind: 'document', options: DOCUMENT, name };
  if (!url.startsWith('/-/', slash)) return undefined;
  const file = url.slice(slash + 3);
  if (file.length === 0 || file.length > MAX_SEGMENT || file.includes('/')) return undefined;
  return { kind: 'file', options: FILE, name, file };
}

function packageName(segment: string): PackageName | undefined {
  if (segment.length === 0 || segment.length > MAX_SEGMENT) return undefined;
  const check = checkPackageName(segment);
  return check.ok ? check.name : undefined;
}
