import type { IncomingHttpHeaders } from 'node:http';
import type { Routes } from '../http/routes.js';
import { packageNotFound, type PackageName } from '@pkg/protocol';
import type { RequestContext } from '../context.js';
import { errorAnswer, sendAnswerOf, type Answer } from '../http/answer.js';
import type { Services } from '../services/services.js';
import { packageNameParam } from './guards.js';
import { wantsAbbreviated } from './negotiation.js';
import { representationAnswer, sendRepresentation, type SendOptions } from './send-representation.js';
import { coveredNameRefused } from '../services/uplinks/uplink-guard.js';
import { STALE_HEADER } from '../services/uplinks/uplink-headers.js';
import type { UplinkDocument } from '../services/uplinks/uplink-service.js';

/** Package documents may change on any write: clients and proxies revalidate after five minutes. */
export const DOCUMENT_CACHE_CONTROL = 'public, max-age=300';

/** The document depends on Accept (full or abbreviated form). */
const VARY_ACCEPT = ['Accept'] as const;

const CACHED_DOCUMENT: SendOptions = { cacheControl: DOCUMENT_CACHE_CONTROL, vary: VARY_ACCEPT };

/** `GET /<name>`: the package document, full or abbreviated; `?write=true` reads it uncached. */
export function packageRoutes(app: Routes, { services }: { services: Services }): void {
  // Not async: a document the cache holds is answered without a promise.
  app.get<{ Params: { name: string }; Querystring: { write?: unknown } }>('/:name', (request, reply) => {
    const name = packageNameParam(request.params.name);
    // npm reads `?write=true` right before it sends a change: it must see the latest revision.
    if (request.query.write === 'true') {
      // npm deprecate, unpublish and owner read this before their write: refused here, with the
      // reason, rather than a 404 of a name never fetched or a 403 after the read.
      const uplink = request.ctx.settings.uplinks?.match(name);
      if (uplink !== undefined) throw coveredNameRefused(name, uplink);
      const scope = { tenant: request.ctx.tenant, tarballBaseUrl: request.ctx.tarballBaseUrl };
      return services.packageReads
        .freshDocument(scope, name)
        .then((fresh) => sendRepresentation(request, reply, fresh, { cacheControl: 'private, no-store', vary: VARY_ACCEPT }));
    }
    return sendAnswerOf(reply, documentAnswer(services, request.ctx, name, request.headers));
  });
}

/**
 * The answer to `GET /<name>`, without a promise when the cache holds the document or knows the
 * package does not exist (404 NOT_FOUND).
 */
export function documentAnswer(
  services: Services,
  ctx: RequestContext,
  name: PackageName,
  requestHeaders: IncomingHttpHeaders,
): Answer | Promise<Answer> {
  const scope = { tenant: ctx.tenant, tarballBaseUrl: ctx.tarballBaseUrl };
  const form = wantsAbbreviated(requestHeaders.accept) ? 'abbreviated' : 'full';
  const uplink = ctx.settings.uplinks?.match(name);
  if (uplink !== undefined) {
    const fresh = services.uplinks.freshDocument(scope, name, form);
    if (fresh !== undefined) return representationAnswer(requestHeaders, fresh, CACHED_DOCUMENT);
    return services.uplinks
      .document(scope, uplink, name, form)
      .then((document) => uplinkDocumentAnswer(document, requestHeaders));
  }
  const cached = services.packageReads.cachedDocument(scope, name, form);
  if (cached === null) return notFoundAnswer(name);
  if (cached !== undefined) return representationAnswer(requestHeaders, cached, CACHED_DOCUMENT);
  return services.packageReads
    .document(scope, name, form)
    .then((representation) => representationAnswer(requestHeaders, representation, CACHED_DOCUMENT));
}

/** A covered name's document; a stale one (its upstream is down) says so in `X-Uplink-Stale`. */
function uplinkDocumentAnswer(document: UplinkDocument, requestHeaders: IncomingHttpHeaders): Answer | Promise<Answer> {
  const answer = representationAnswer(requestHeaders, document.representation, CACHED_DOCUMENT);
  if (!document.stale) return answer;
  const mark = (resolved: Answer): Answer => {
    resolved.headers[STALE_HEADER] = 'true';
    return resolved;
  };
  return answer instanceof Promise ? answer.then(mark) : mark(answer);
}

/** Remembered 404 answers (answers are never changed by their senders), a bounded number. */
const notFoundAnswers = new Map<string, Answer>();
const NOT_FOUND_ANSWERS = 1024;

/**
 * The 404 of a package known not to exist, as an answer, not a throw: unwinding and building the
 * error cost more than the rest of a remembered 404, and crawlers ask for the same names again.
 */
function notFoundAnswer(name: PackageName): Answer {
  let answer = notFoundAnswers.get(name);
  if (answer === undefined) {
    answer = errorAnswer(packageNotFound(name));
    if (notFoundAnswers.size >= NOT_FOUND_ANSWERS) notFoundAnswers.clear();
    notFoundAnswers.set(name, answer);
  }
  return answer;
}
