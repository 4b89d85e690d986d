import type { Routes } from '../../http/routes.js';
import { ProtocolError, errorBody, isSemver } from '@pkg/protocol';
import { packageNameParam, truncate } from '../../routes/guards.js';
import { sendPage } from '../html-responses.js';
import { homePage } from '../pages/home-page.js';
import { packagePage } from '../pages/package-page.js';
import { searchPage } from '../pages/search-page.js';
import { mayRead, pageContext } from '../viewer.js';
import type { WebServices } from '../web-services.js';

/** Packages per search results page. */
export const SEARCH_PAGE_SIZE = 20;
/** Packages in each list of the home page. */
const HOME_LIST_SIZE = 8;
/** Weeks in the downloads chart. */
const CHART_WEEKS = 12;
const MAX_QUERY_LENGTH = 256;
// The search API pages at most this deep (its `from` limit is 100,000).
const MAX_PAGE = 5_000;

/** Reading: home, search results, package pages. */
export function browseRoutes(app: Routes, { web }: { web: WebServices }): void {
  app.get('/', async (request, reply) => {
    // npm and the Unity Editor never ask for `/`; anything but a browser gets the API's 404.
    reply.header('vary', 'Accept');
    if (!/\btext\/html\b/.test(String(request.headers.accept ?? ''))) {
      return reply
        .code(404)
        .send(errorBody('NOT_FOUND', 'This is a package registry API; open it in a browser for the web interface'));
    }
    const ctx = await pageContext(request, reply, web);
    if (!(await mayRead(request, reply, web, ctx))) return reply;
    const tenant = request.ctx.tenant;
    const [recent, popular] = await Promise.all([
      web.catalog.recentlyUpdated(tenant, HOME_LIST_SIZE),
      web.catalog.mostDownloaded(tenant, HOME_LIST_SIZE),
    ]);
    return sendPage(reply, homePage(ctx, { recent, popular }));
  });

  app.get<{ Querystring: Record<string, unknown> }>('/-/web/search', async (request, reply) => {
    const query = optionalString(request.query.q, 'q');
    if (query.length > MAX_QUERY_LENGTH)
      throw new ProtocolError('BAD_REQUEST', `The search text is longer than ${MAX_QUERY_LENGTH} characters`);
    const page = pageNumber(request.query.page);
    const ctx = await pageContext(request, reply, web);
    if (!(await mayRead(request, reply, web, ctx))) return reply;
    const result = await web.catalog.search(request.ctx.tenant, query.trim(), (page - 1) * SEARCH_PAGE_SIZE, SEARCH_PAGE_SIZE);
    return sendPage(
      reply,
      searchPage(ctx, { query: query.trim(), page, pageSize: SEARCH_PAGE_SIZE, total: result.total, packages: result.packages }),
    );
  });

  app.get<{ Params: { name: string }; Querystring: Record<string, unknown> }>('/-/web/package/:name', async (request, reply) => {
    const name = packageNameParam(request.params.name);
    const version = optionalString(request.query.version, 'version');
    if (version && !isSemver(version)) throw new ProtocolError('BAD_REQUEST', `'${truncate(version)}' is not a version`);
    const ctx = await pageContext(request, reply, web);
    if (!(await mayRead(request, reply, web, ctx))) return reply;
    const view = await web.packages.view(request.ctx.tenant, request.ctx.baseUrl, name, version || undefined, {
      needsToken: request.ctx.settings.readAccess === 'token',
      uplinks: request.ctx.settings.uplinks,
    });
    if (!view) {
      throw new ProtocolError(
        'NOT_FOUND',
        version ? `${name} has no version ${version}` : `There is no package named ${name} here`,
      );
    }
    const downloads = await web.catalog.weeklyDownloads(request.ctx.tenant, name, CHART_WEEKS);
    return sendPage(reply, packagePage(ctx, view, downloads));
  });
}

function optionalString(value: unknown, field: string): string {
  if (value === undefined) return '';
  if (typeof value !== 'string') throw new ProtocolError('BAD_REQUEST', `'${field}' must be given once`);
  return value;
}

function pageNumber(value: unknown): number {
  const text = optionalString(value, 'page');
  if (text === '') return 1;
  if (!/^[1-9][0-9]*$/.test(text) || Number(text) > MAX_PAGE) {
    throw new ProtocolError('BAD_REQUEST', `The page number must be a whole number from 1 to ${MAX_PAGE}`);
  }
  return Number(text);
}
