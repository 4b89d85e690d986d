import type { ServerDeps } from '../deps.js';
import type { Services } from '../services/services.js';
import { AccountTokens } from './account-tokens.js';
import type { Assets } from './assets.js';
import { BrowserSessions } from './browser-sessions.js';
import { SearchCatalog, type WebCatalog } from './catalog.js';
import { NpmWebLogin } from './npm-web-login.js';
import { PackageViews } from './package-view.js';

/** The web interface's use cases, built once from the server's deps and services. */
export interface WebServices {
  assets: Assets;
  catalog: WebCatalog;
  packages: PackageViews;
  sessions: BrowserSessions;
  npmLogin: NpmWebLogin;
  tokens: AccountTokens;
  /** The registry's own services (tenant settings, credentials). */
  registry: Services;
}

export function createWebServices(deps: ServerDeps, services: Services, assets: Assets): WebServices {
  return {
    assets,
    catalog: new SearchCatalog(services.search, deps.now),
    packages: new PackageViews(deps.metadata),
    sessions: new BrowserSessions(deps.metadata, deps.now),
    npmLogin: new NpmWebLogin(deps.metadata, services.auth, deps.now),
    tokens: new AccountTokens(deps.metadata),
    registry: services,
  };
}
