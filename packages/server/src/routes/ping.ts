import type { FastifyInstance } from 'fastify';
import type { Services } from '../services/services.js';

/** `GET /-/ping`: npm's liveness check (`npm ping`). */
export async function pingRoutes(app: FastifyInstance, _opts: { services: Services }): Promise<void> {
  app.get('/-/ping', { config: { openAccess: true } }, async () => ({}));
}
