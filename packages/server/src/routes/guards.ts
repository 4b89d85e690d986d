import type { RouteRequest } from '../http/route-request.js';
import type { Caller } from '../context.js';
import { callerOf, publisherOf, refusePublishOnly } from '../services/caller-rules.js';

export { callerOf, packageNameParam, refusePublishOnly, truncate } from '../services/caller-rules.js';

/** The authenticated caller, or 401 UNAUTHORIZED. */
export function requireCaller(request: RouteRequest): Caller {
  return callerOf(request.ctx);
}

/**
 * A caller allowed to change a package: not a read-only token, nor a publish-only one (dist-tags,
 * owners, deprecation, unpublish).
 */
export function requireWriter(request: RouteRequest): Caller {
  return refusePublishOnly(requirePublisher(request));
}

/** A caller allowed to publish new versions: not a read-only token. */
export function requirePublisher(request: RouteRequest): Caller {
  return publisherOf(request.ctx);
}
