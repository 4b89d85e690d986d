import type { Routes } from '../http/routes.js';
import type { Config } from '../config/config.js';
import { GLOBAL_TENANT } from '../storage/ports.js';

/**
 * `GET /-/pkg/registry`: what the registry calls itself, `{name}`, so a client can name it as
 * people do (the `pkg` client names Unity's `scopedRegistries` entries after it, where two
 * registries on one host would otherwise read the same). The `registryName` setting, else the
 * host of the registry's URL with its port; a tenant's registry adds the tenant's name.
 */
export function registryInfoRoutes(app: Routes, { config }: { config: Config }): void {
  app.get('/-/pkg/registry', { config: { openAccess: true } }, async (request) => {
    const { tenant, baseUrl } = request.ctx;
    const host = new URL(baseUrl).host;
    if (config.registryName === undefined) return { name: host };
    return { name: tenant === GLOBAL_TENANT ? config.registryName : `${config.registryName} (${tenant})` };
  });
}
