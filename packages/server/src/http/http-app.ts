import type { IncomingMessage, RequestListener, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import FindMyWay from 'find-my-way';
import type { InjectOptions, Response as InjectedResponse } from 'light-my-request';
import type { Logger } from 'pino';
import { ProtocolError } from '@pkg/protocol';
import { CompiledRoute, Exchange, type ExchangeParts } from './exchange.js';
import { createHttpServer } from './http-server.js';
import { API_PARSERS } from './request-body.js';
import type { RequestPipeline } from './request-steps.js';
import type { RequestScope } from './route-request.js';
import { Routes, type ErrorHandler, type Handler, type RouteDefinition } from './routes.js';

export interface HttpAppParts {
  tls?: { cert: Buffer; key: Buffer } | undefined;
  log: Logger;
  scope: RequestScope;
  pipeline: RequestPipeline;
  /** The body limit of routes that name none (`maxBodySize`). */
  bodyLimit: number;
  nextRequestId: () => string;
  /** Answers failures no route's own handler answers (the API's JSON errors). */
  errorHandler: ErrorHandler;
  /** Answers a request no route matches. */
  notFound: Handler;
}

/** What find-my-way's URL checks give back, as the handler of its answer. */
const BAD_URL = Symbol('bad URL');
const SEGMENT_TOO_LONG = Symbol('segment too long');

/**
 * The registry's HTTP server: one router (find-my-way) over every route, and one lifecycle for
 * every request (http/exchange.ts), from the request steps to the log line. Routes are declared
 * through `routes`; `listener` is what the socket's requests and `inject` go to.
 */
export class HttpApp {
  readonly log: Logger;
  readonly server: Server;
  readonly routes: Routes;
  readonly listener: RequestListener;
  readonly #router = FindMyWay({
    ignoreTrailingSlash: true,
    // npm packument names and tarball files may carry `%2f`; routing is on the decoded path.
    maxParamLength: 500,
    // The query is parsed when a route first asks for it (RouteRequest.query).
    querystringParser: (query: string) => query as unknown as Record<string, string>,
    onBadUrl: () => BAD_URL,
    onMaxParamLength: () => SEGMENT_TOO_LONG,
  });
  readonly #parts: ExchangeParts;
  readonly #pipeline: RequestPipeline;
  readonly #nextRequestId: () => string;
  readonly #scheme: 'http' | 'https';
  readonly #declared = new Map<string, RouteDefinition>();
  readonly #notFound: CompiledRoute;
  readonly #badUrl: CompiledRoute;
  readonly #segmentTooLong: CompiledRoute;
  readonly #onReady: (() => Promise<void>)[] = [];
  readonly #preClose: (() => Promise<void> | void)[] = [];
  readonly #onClose: (() => Promise<void> | void)[] = [];
  #ready: Promise<void> | undefined;
  #closing: Promise<void> | undefined;

  constructor(parts: HttpAppParts) {
    this.log = parts.log;
    this.#pipeline = parts.pipeline;
    this.#nextRequestId = parts.nextRequestId;
    this.#scheme = parts.tls ? 'https' : 'http';
    this.#parts = { scope: parts.scope, pipeline: parts.pipeline, bodyLimit: parts.bodyLimit, errorHandler: parts.errorHandler };
    this.routes = new Routes((route) => this.#declare(route), API_PARSERS);
    // A request no route matches still runs the request steps: its tenant, limit and log line.
    this.#notFound = new CompiledRoute(definitionOf(parts.notFound), parts.pipeline, false);
    // URLs refused before routing have no tenant or route to speak of: answered and logged only.
    this.#badUrl = new CompiledRoute(
      definitionOf(() => {
        throw new ProtocolError('BAD_REQUEST', 'The URL is not valid (bad percent-encoding)');
      }),
      undefined,
      false,
    );
    this.#segmentTooLong = new CompiledRoute(
      definitionOf(() => {
        throw new ProtocolError('BAD_REQUEST', 'A path segment is too long');
      }),
      undefined,
      false,
    );
    this.listener = (request, response) => this.#dispatch(request, response);
    this.server = createHttpServer(parts.tls, this.listener);
  }

  /** Runs once before the first request is served (`ready`, `listen`, `inject`). */
  onReady(hook: () => Promise<void>): void {
    this.#onReady.push(hook);
  }

  /** Runs when closing starts, before the server stops listening. */
  onPreClose(hook: () => Promise<void> | void): void {
    this.#preClose.push(hook);
  }

  /** Runs once every connection has ended. */
  onClose(hook: () => Promise<void> | void): void {
    this.#onClose.push(hook);
  }

  ready(): Promise<void> {
    return (this.#ready ??= (async () => {
      for (const hook of this.#onReady) await hook();
    })());
  }

  /** Listens; resolves to the address the server answers on (`http://127.0.0.1:4873`). */
  async listen(options: { host: string; port: number }): Promise<string> {
    await this.ready();
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(options.port, options.host, () => {
        this.server.off('error', reject);
        resolve();
      });
    });
    const address = this.server.address() as AddressInfo;
    const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
    return `${this.#scheme}://${host}:${address.port}`;
  }

  /**
   * Stops: the pre-close hooks (answers say `Connection: close` from then on), no new
   * connections, every in-flight request finished, then the close hooks (the services).
   */
  close(): Promise<void> {
    return (this.#closing ??= (async () => {
      for (const hook of this.#preClose) await hook();
      if (this.server.listening) await new Promise<void>((resolve) => this.server.close(() => resolve()));
      for (const hook of this.#onClose) await hook();
    })());
  }

  /** An in-process request, answered as a socket's request is: for tests. */
  async inject(options: InjectOptions | string): Promise<InjectedResponse> {
    await this.ready();
    // Loaded on first use: a server never needs it.
    const { default: lightMyRequest } = await import('light-my-request');
    return lightMyRequest(this.listener, options);
  }

  /** The declared routes, `METHOD /pattern` per line (sorted), for tests and operators. */
  routeList(): string[] {
    return [...this.#declared.keys()].sort();
  }

  /** A declared route, as the request steps and hooks will run it. */
  routeOf(method: string, url: string): RouteDefinition | undefined {
    return this.#declared.get(`${method} ${url}`);
  }

  #declare(route: RouteDefinition): void {
    const key = `${route.method} ${route.url}`;
    const existing = this.#declared.get(key);
    if (existing !== undefined) {
      // A HEAD route of its own takes the place of the one a GET gives.
      if (route.head) return;
      if (!existing.head) throw new Error(`route ${key} is declared twice`);
      this.#router.off(route.method, route.url);
    }
    this.#declared.set(key, route);
    this.#router.on(route.method, route.url, noop, new CompiledRoute(route, this.#pipeline));
  }

  #dispatch(request: IncomingMessage, response: ServerResponse): void {
    const found = this.#router.find(request.method as 'GET', request.url ?? '/');
    let route: CompiledRoute;
    let params: Record<string, string> | undefined;
    let query = '';
    if (found === null) route = this.#notFound;
    else if (found.store === null) {
      route = (found.handler as unknown as () => symbol)() === BAD_URL ? this.#badUrl : this.#segmentTooLong;
    } else {
      route = found.store as CompiledRoute;
      params = found.params as Record<string, string>;
      query = found.searchParams as unknown as string;
    }
    new Exchange(this.#parts, route, request, response, this.#nextRequestId(), params, query).run();
  }
}

function noop(): void {}

function definitionOf(handler: Handler): RouteDefinition {
  return {
    method: 'GET',
    url: '',
    config: undefined,
    bodyLimit: undefined,
    handler,
    guards: [],
    onSend: [],
    onError: [],
    parsers: API_PARSERS,
    errorHandler: undefined,
    head: false,
  };
}
