import type { FastifyInstance } from 'fastify';
import { ProtocolError } from '@pkg/protocol';
import type { ServerDeps } from '../deps.js';
import type { Services } from '../services/services.js';
import { loadAssets } from './assets.js';
import { installHtmlResponses } from './html-responses.js';
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
export async function webRoutes(
  app: FastifyInstance,
  { deps, services }: { deps: ServerDeps; services: Services },
): Promise<void> {
  const web = createWebServices(services, deps, await loadAssets());
  // A registry that requires a token for reads still serves these to browsers, which carry no
  // token: the pages check their own sign-in session, and the login steps must work signed out.
  app.addHook('onRoute', (route) => {
    route.config = { ...route.config, openAccess: true };
  });
  await app.register(npmLoginApiRoutes, { web });
  await app.register(async (pages) => {
    // Pages and their assets have a budget of their own, apart from the API's limits.
    pages.addHook('onRoute', (route) => {
      const budget = route.url.startsWith('/-/web/assets/') ? 'asset' : 'page';
      route.config = { ...route.config, budget };
    });
    installHtmlResponses(pages, web);
    await pages.register(assetRoutes, { assets: web.assets });
    await pages.register(browseRoutes, { web });
    await pages.register(accountRoutes, { web });
    await pages.register(invitationRoutes, { web });
    await pages.register(auditPageRoutes, { web });
    await pages.register(webhookPageRoutes, { web });
    await pages.register(advisoryPageRoutes, { web });
    await pages.register(npmLoginPageRoutes, { web });
    // Any other path under /-/web/ is a web page that does not exist: an HTML 404.
    pages.get('/-/web/*', async () => {
      throw new ProtocolError('NOT_FOUND', 'There is no such page');
    });
  });
}
