import type { FastifyInstance } from 'fastify';
import { depthExceeds, jsonTooDeep, MAX_JSON_DEPTH } from '../services/json-depth.js';

/**
 * Refuses JSON bodies nested deeper than MAX_JSON_DEPTH with 400, before any route code walks
 * them recursively. The body size limit alone still allows hundreds of thousands of levels.
 */
export function installJsonDepthLimit(app: FastifyInstance): void {
  app.addHook('preValidation', function jsonDepthLimit(request, _reply, done) {
    if (request.body !== null && typeof request.body === 'object' && depthExceeds(request.body, MAX_JSON_DEPTH)) {
      return done(jsonTooDeep());
    }
    done();
  });
}
