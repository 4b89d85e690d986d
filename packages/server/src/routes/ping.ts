import type { Routes } from '../http/routes.js';

/** `GET /-/ping`: npm's liveness check (`npm ping`). */
export function pingRoutes(app: Routes): void {
  app.get('/-/ping', { config: { openAccess: true } }, async () => ({}));
}
