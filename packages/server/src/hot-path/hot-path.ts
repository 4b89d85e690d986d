import type { IncomingMessage, ServerResponse } from 'node:http';
import { parse as parseQueryString } from 'fast-querystring';
import type { Readable } from 'node:stream';
import type { FastifyBaseLogger } from 'fastify';
import type { RequestContext } from '../context.js';
import { errorResponse, jsonAnswer, type Answer } from '../http/answer.js';
import type { ClientAddressing } from '../http/client-address.js';
import type { RequestPipeline, StepReply, StepRequest } from '../http/request-steps.js';
import type { DrainState } from '../plugins/connection-draining.js';
import { documentAnswer } from '../routes/packages.js';
import { fileAnswer } from '../routes/tarballs.js';
import { searchAnswer } from '../routes/search.js';
import { whoamiAnswer } from '../routes/user-auth.js';
import type { Services } from '../services/services.js';
import { hotRouteOf, type HotRoute } from './hot-routes.js';

/** What the hot path shares with the fastify app, so both answer alike. */
export interface HotPathParts {
  services: Services;
  /** The request steps fastify runs as hooks: the hot path runs the same list. */
  pipeline: RequestPipeline;
  addressing: ClientAddressing;
  log: FastifyBaseLogger;
  /** The request id generator fastify uses too, so ids stay unique across both. */
  nextRequestId: () => string;
  drain: DrainState;
  /** Paths of routes without parameters (fastify prefers them to `/:name`). */
  staticPaths: ReadonlySet<string>;
}

/**
 * Answers the registry's hottest reads — package documents, tarballs, 404s of unknown packages,
 * whoami, search — before fastify sees them, running the same request steps as fastify's hooks
 * (http/request-steps.ts: request context, rate limit, read access, the log line, metrics,
 * draining) around the same route code, minus the framework's per-request machinery, which
 * costs more than the rest of such a request (bench/README.md). Anything else, or anything
 * unusual about one of these (HEAD, a query string, a body, an invalid name, shutting down),
 * goes to fastify.
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

/**
 * One request on the hot path: the request and the reply the pipeline's steps see. Each step
 * runs at once when it needs no promise.
 */
class HotExchange implements StepRequest, StepReply {
  readonly id: string;
  readonly method = 'GET';
  readonly raw: IncomingMessage;
  readonly routeOptions: HotRoute['options'];
  ctx!: RequestContext;
  /** Set when the response is out, for the steps after it. */
  elapsedTime = 0;
  readonly #parts: HotPathParts;
  readonly #response: ServerResponse;
  readonly #route: HotRoute;
  readonly #started = performance.now();
  /** Headers the steps set, in fastify's order: before the route's. */
  #headers: Record<string, string> | undefined;

  constructor(parts: HotPathParts, request: IncomingMessage, response: ServerResponse, route: HotRoute) {
    this.#parts = parts;
    this.raw = request;
    this.#response = response;
    this.#route = route;
    this.routeOptions = route.options;
    this.id = parts.nextRequestId();
  }

  get url(): string {
    return this.raw.url ?? '';
  }

  get params(): { name?: string } {
    const route = this.#route;
    return route.kind === 'document' || route.kind === 'file' ? { name: route.name } : {};
  }

  get ip(): string {
    return this.#parts.addressing.ip(this.raw);
  }

  get statusCode(): number {
    return this.#response.statusCode;
  }

  header(name: string, value: string): this {
    (this.#headers ??= {})[name] = value;
    return this;
  }

  run(): void {
    this.#steps(0);
  }

  /** The pipeline's steps before the handler, from `first` on, then the route's answer. */
  #steps(first: number): void {
    const steps = this.#parts.pipeline.beforeHandler;
    for (let i = first; i < steps.length; i++) {
      let result;
      try {
        result = steps[i]!.run(this, this);
      } catch (err) {
        return this.#fail(err);
      }
      if (result instanceof Promise) {
        result.then(
          (failure) => (failure ? this.#fail(failure) : this.#steps(i + 1)),
          (err) => this.#fail(err),
        );
        return;
      }
      if (result) return this.#fail(result);
    }
    this.#answer();
  }

  #answer(): void {
    try {
      const { services } = this.#parts;
      const ctx = this.ctx;
      const route = this.#route;
      const headers = this.raw.headers;
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
    if (failure.unexpected) this.#parts.log.error({ reqId: this.id, err }, 'unhandled error');
    if (failure.unavailable)
      this.#parts.log.warn({ reqId: this.id, ...failure.unavailable }, 'answered 503: a backing service is unreachable');
    this.#send(jsonAnswer(failure.status, failure.body, failure.headers));
  }

  #send(answer: Answer): void {
    const response = this.#response;
    if (response.headersSent || response.destroyed) return;
    // Fastify's order: the steps' headers (set by their hooks), then the route's, then onSend's.
    const headers = (this.#headers ??= {});
    for (const name in answer.headers) headers[name] = answer.headers[name]!;
    const beforeSend = this.#parts.pipeline.beforeSend;
    for (let i = 0; i < beforeSend.length; i++) beforeSend[i]!.run(this);
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
      streamBody(body, response);
    }
  }

  #finished(): void {
    this.elapsedTime = performance.now() - this.#started;
    try {
      const afterResponse = this.#parts.pipeline.afterResponse;
      for (let i = 0; i < afterResponse.length; i++) afterResponse[i]!.run(this, this);
    } catch (err) {
      // The response is out; a failure to count or log it must not take the process down.
      this.#parts.log.error({ reqId: this.id, err }, 'recording a request failed');
    }
  }
}

/** The query string as fastify's router parses it (fast-querystring, no query: {}). */
function parseQuery(query: string): Record<string, unknown> {
  return query.length === 0 ? {} : parseQueryString(query);
}

function streamBody(body: Readable, response: ServerResponse): void {
  // A body that fails after its headers went out can only cut the response short; a client that
  // goes away releases the body (a file left open, an uplink download's stream left waiting).
  body.once('error', () => response.destroy());
  response.once('close', () => {
    if (!response.writableFinished) body.destroy();
  });
  body.pipe(response);
}
