import type { FastifyInstance } from 'fastify';
import { ProtocolError } from '@pkg/protocol';

/** Deeper than any document npm sends (a package.json nests a handful of levels). */
export const MAX_JSON_DEPTH = 64;

/**
 * Refuses JSON bodies nested deeper than MAX_JSON_DEPTH with 400, before any route code walks
 * them recursively. The body size limit alone still allows hundreds of thousands of levels.
 */
export function installJsonDepthLimit(app: FastifyInstance): void {
  app.addHook('preValidation', function jsonDepthLimit(request, _reply, done) {
    if (request.body !== null && typeof request.body === 'object' && depthExceeds(request.body, MAX_JSON_DEPTH)) {
      return done(new ProtocolError('BAD_REQUEST', `The JSON body is nested more than ${MAX_JSON_DEPTH} levels deep`));
    }
    done();
  });
}

/** Iterative, so that a hostile body cannot overflow the stack of the check itself. */
export function depthExceeds(value: object, max: number): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (depth > max) return true;
    const children = Array.isArray(node) ? node : Object.values(node as object);
    for (const child of children) {
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
    }
  }
  return false;
}
