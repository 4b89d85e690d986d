import type { Routes } from '../http/routes.js';
import type { Services } from '../services/services.js';
import { packageNameParam } from './guards.js';

/** npm's download-counts API: `/downloads/{point|range}/{period}/<package>`. */
export function downloadCountRoutes(app: Routes, { services }: { services: Services }): void {
  app.get<{ Params: { period: string; name: string } }>('/downloads/point/:period/:name', async (request) => {
    const name = packageNameParam(request.params.name);
    return services.search.downloadPoint(request.ctx.tenant, name, request.params.period);
  });

  app.get<{ Params: { period: string; name: string } }>('/downloads/range/:period/:name', async (request) => {
    const name = packageNameParam(request.params.name);
    return services.search.downloadRange(request.ctx.tenant, name, request.params.period);
  });
}
