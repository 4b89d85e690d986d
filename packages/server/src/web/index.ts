import type { Routes } from '../http/routes.js';
import { ProtocolError } from '@pkg/protocol';
import type { ServerDeps } from '../deps.js';
import type { Services } from '../services/services.js';
import { loadAssets } from './assets.js';
import { htmlResponses } from './html-responses.js';
import { accountRoutes } from './routes/account-routes.js';
import { auditPageRoutes } from './routes/audit-routes.js';
import { assetRoutes } from './routes/asset-routes.js';
import { browseRoutes } from './routes/browse-routes.js';
import { invitationRoutes } from './routes/invitation-routes.js';
import { webhookPageRoutes } from './routes/webhook-routes.js';
import { advisoryPageRoutes } from './routes/advisory-routes.js';
import { npmLoginApiRoutes } from './routes/npm-login-api-routes.js';
import { npmLoginPageRoutes } from './routes/npm-login-page-routes.js';
import { createWebServices } from './web-services.js';

/**
 * The web interface and npm's web login. Pages live at `/` and under `/-/web/`, which no
 * reverse-DNS package name can reach; the login API is npm's `/-/v1/login`.
 */
export async function webRoutes(app: Routes, { deps, services }: { deps: ServerDeps; services: Services }): Promise<void> {
  const web = createWebServices(services, deps, await loadAssets());
  // A registry that requires a token for reads still serves these to browsers, which carry no
  // token: the pages check their own sign-in session, and the login steps must work signed out.
  const open = app.group({ config: { openAccess: true } });
  npmLoginApiRoutes(open, { web });
  const pages = open.group({
    ...htmlResponses(web),
    // Pages and their assets have a budget of their own, apart from the API's limits.
    config: (url) => ({ budget: url.startsWith('/-/web/assets/') ? 'asset' : 'page' }),
  });
  assetRoutes(pages, { assets: web.assets });
  browseRoutes(pages, { web });
  accountRoutes(pages, { web });
  invitationRoutes(pages, { web });
  auditPageRoutes(pages, { web });
  webhookPageRoutes(pages, { web });
  advisoryPageRoutes(pages, { web });
  npmLoginPageRoutes(pages, { web });
  // Any other path under /-/web/ is a web page that does not exist: an HTML 404.
  pages.get('/-/web/*', async () => {
    throw new ProtocolError('NOT_FOUND', 'There is no such page');
  });
}
