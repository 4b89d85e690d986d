import type { IncomingMessage, ServerResponse } from 'node:http';
import { parse as parseQueryString } from 'fast-querystring';
import type { Readable } from 'node:stream';
import type { FastifyBaseLogger } from 'fastify';
import type { RequestContext } from '../context.js';
import { readAccessDenial } from '../http/access.js';
import { errorResponse, jsonAnswer, type Answer } from '../http/answer.js';
import type { ClientAddressing } from '../http/client-address.js';
import type { RequestContextResolver } from '../http/request-context.js';
import type { RegistryMetrics } from '../observability/metrics.js';
import type { DrainState } from '../plugins/connection-draining.js';
import type { RequestLog } from '../plugins/logging.js';
import { documentAnswer } from '../routes/packages.js';
import { fileAnswer } from '../routes/tarballs.js';
import { searchAnswer } from '../routes/search.js';
import { whoamiAnswer } from '../routes/user-auth.js';
import type { LimitState } from '../services/rate-limits.js';
import type { Services } from '../services/services.js';
import { hotRouteOf, type HotRoute } from './hot-routes.js';

/** What the hot path shares with the fastify app, so both answer alike. */
export interface HotPathParts {
  services: Services;
  contexts: RequestContextResolver;
  addressing: ClientAddressing;
  metrics: RegistryMetrics;
  log: FastifyBaseLogger;
  requestLog: RequestLog;
  /** The request id generator fastify uses too, so ids stay unique across both. */
  nextRequestId: () => string;
  drain: DrainState;
  /** Paths of routes without parameters (fastify prefers them to `/:name`). */
  staticPaths: ReadonlySet<string>;
}

/**
 * Answers the registry's hottest reads — package documents, tarballs, 404s of unknown packages,
 * whoami, search — before fastify sees them, with the same steps and the same code as the fastify routes
 * (request context, rate limit, read access, the route's answer, the error shape, the log line
 * and metrics) minus the framework's per-request machinery, which costs more than the rest of
 * such a request (bench/README.md). Anything else, or anything unusual about one of these
 * (HEAD, a query string, a body, an invalid name, shutting down), goes to fastify.
 */
export class HotPath {
  /** Off: every request goes through fastify (tests compare the two). */
  enabled = true;
  /** Requests answered here since start. */
  served = 0;
  readonly #parts: HotPathParts;

  constructor(parts: HotPathParts) {
    this.#parts = parts;
  }

  /** Answers `request` and returns true, or returns false without touching it. */
  serve(request: IncomingMessage, response: ServerResponse): boolean {
    if (!this.enabled || request.method !== 'GET' || this.#parts.drain.draining) return false;
    const route = hotRouteOf(request.url ?? '', this.#parts.staticPaths);
    if (route === undefined) return false;
    // A body, or a body encoding (which fastify checks even without one), is fastify's to judge.
    const headers = request.headers;
    if (headers['content-length'] !== undefined || headers['transfer-encoding'] !== undefined) return false;
    if (headers['content-encoding'] !== undefined) return false;
    this.served++;
    new HotExchange(this.#parts, request, response, route).run();
    return true;
  }
}

/** One request on the hot path; each step runs at once when it needs no promise. */
class HotExchange {
  readonly #parts: HotPathParts;
  readonly #request: IncomingMessage;
  readonly #response: ServerResponse;
  readonly #route: HotRoute;
  readonly #started = performance.now();
  readonly #reqId: string;
  #ctx: RequestContext | undefined;
  #limit: LimitState | undefined;

  constructor(parts: HotPathParts, request: IncomingMessage, response: ServerResponse, route: HotRoute) {
    this.#parts = parts;
    this.#request = request;
    this.#response = response;
    this.#route = route;
    this.#reqId = parts.nextRequestId();
  }

  run(): void {
    const { contexts, addressing } = this.#parts;
    const request = this.#request;
    try {
      const ctx = contexts.resolve({
        host: addressing.host(request),
        protocol: addressing.protocol(request),
        authorization: request.headers.authorization,
      });
      if (ctx instanceof Promise)
        ctx.then(
          (resolved) => this.#count(resolved),
          (err) => this.#fail(err),
        );
      else this.#count(ctx);
    } catch (err) {
      this.#fail(err);
    }
  }

  /** Counts the request against the caller's limit (as plugins/rate-limit.ts does), then answers. */
  #count(ctx: RequestContext): void {
    this.#ctx = ctx;
    try {
      const { rateLimits } = this.#parts.services;
      const { caller, settings, tenant } = ctx;
      const counted = caller
        ? rateLimits.count('authenticated', tenant, caller.user, settings.rateLimitAuthenticated)
        : rateLimits.count('anonymous', tenant, this.#parts.addressing.ip(this.#request), settings.rateLimitAnonymous);
      if (counted instanceof Promise)
        counted.then(
          (state) => this.#answer(state),
          (err) => this.#fail(err),
        );
      else this.#answer(counted);
    } catch (err) {
      this.#fail(err);
    }
  }

  #answer(limit: LimitState | undefined): void {
    this.#limit = limit;
    const ctx = this.#ctx!;
    try {
      const denied = readAccessDenial(ctx, false);
      if (denied) throw denied;
      const { services } = this.#parts;
      const route = this.#route;
      const headers = this.#request.headers;
      const answer =
        route.kind === 'document'
          ? documentAnswer(services, ctx, route.name, headers)
          : route.kind === 'file'
            ? fileAnswer(services, ctx, route.name, route.file, headers, 'GET')
            : route.kind === 'search'
              ? searchAnswer(services, ctx, parseQuery(route.query))
              : whoamiAnswer(services, ctx);
      if (answer instanceof Promise)
        answer.then(
          (resolved) => this.#send(resolved),
          (err) => this.#fail(err),
        );
      else this.#send(answer);
    } catch (err) {
      this.#fail(err);
    }
  }

  #fail(err: unknown): void {
    const failure = errorResponse(err);
    if (failure.unexpected) this.#parts.log.error({ reqId: this.#reqId, err }, 'unhandled error');
    this.#send(jsonAnswer(failure.status, failure.body, failure.headers));
  }

  #send(answer: Answer): void {
    const response = this.#response;
    if (response.headersSent || response.destroyed) return;
    const limit = this.#limit;
    // Fastify's header order: the rate limit's (set first, by its hook), then the route's.
    const headers: Record<string, string> = limit
      ? {
          'x-ratelimit-limit': String(limit.limit),
          'x-ratelimit-remaining': String(limit.remaining),
          'x-ratelimit-reset': String(limit.reset),
        }
      : {};
    for (const name in answer.headers) headers[name] = answer.headers[name]!;
    // Fastify's order: its draining hook adds Connection before the length is set.
    if (this.#parts.drain.draining) headers.connection = 'close';
    const body = answer.body;
    if (Buffer.isBuffer(body)) headers['content-length'] = String(body.length);
    else if (body === undefined && answer.status !== 304 && answer.status !== 204) headers['content-length'] = '0';
    response.writeHead(answer.status, headers);
    if (body === undefined || Buffer.isBuffer(body)) {
      // Handed to the socket whole: the request is done (fastify's 'finish' comes a tick later).
      response.end(body);
      this.#finished();
    } else {
      response.once('finish', () => this.#finished());
      streamBody(body as Readable, response);
    }
  }

  #finished(): void {
    try {
      this.#record();
    } catch (err) {
      // The response is out; a failure to count or log it must not take the process down.
      this.#parts.log.error({ reqId: this.#reqId, err }, 'recording a request failed');
    }
  }

  #record(): void {
    const { metrics, requestLog, drain, addressing } = this.#parts;
    const request = this.#request;
    const status = this.#response.statusCode;
    const ms = performance.now() - this.#started;
    metrics.observeRequest('GET', this.#route.pattern, status, ms / 1000);
    requestLog.write(this.#reqId, 'GET', request.url ?? '', status, ms, this.#ctx, addressing.ip(request));
    drain.responseDone();
  }
}

/** The query string as fastify's router parses it (fast-querystring, no query: {}). */
function parseQuery(query: string): Record<string, unknown> {
  return query.length === 0 ? {} : parseQueryString(query);
}

function streamBody(body: Readable, response: ServerResponse): void {
  // A blob that cannot be read after its headers went out can only cut the response short.
  body.once('error', () => response.destroy());
  body.pipe(response);
}
