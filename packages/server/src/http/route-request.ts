import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { parse as parseQueryString } from 'fast-querystring';
import type { Logger } from 'pino';
import type { RequestContext } from '../context.js';
import type { NotedChange } from '../services/change-records.js';
import type { ClientAddressing } from './client-address.js';
import type { StepRequest } from './request-steps.js';
import type { RouteConfig, RouteGeneric } from './route-shapes.js';

/** What every request of one server shares. */
export interface RequestScope {
  readonly addressing: ClientAddressing;
  readonly log: Logger;
}

/** The matched route as the request steps and the error handler read it. */
export interface MatchedRoute {
  /** The route's pattern (`/:name`); undefined when no route matched (a 404). */
  readonly url: string | undefined;
  readonly config: RouteConfig | undefined;
  /** The body limit that applied, for the 413's wording. */
  readonly bodyLimit: number | undefined;
}

const NO_PARAMS = Object.freeze({});

/**
 * A request as routes, guards and the request steps see it. What costs something to work out
 * (the query, the client's address, a logger of its own) is worked out when first asked.
 */
export class RouteRequest<G extends RouteGeneric = RouteGeneric> implements StepRequest {
  readonly id: string;
  readonly raw: IncomingMessage;
  readonly method: string;
  readonly url: string;
  readonly routeOptions: MatchedRoute;
  params: G['Params'];
  body: G['Body'] = undefined;
  /** Set by the request-context step; every later step and the route read it. */
  ctx!: RequestContext;
  /** Changes the handler made (services/change-records.ts), recorded as the answer is sent. */
  notedChanges?: NotedChange[];
  /** Why the request was refused, kept for the audit log. */
  refusal?: string;
  /** The user signed in to the web interface who sent the request (a form carries no token). */
  sessionUser?: string;
  readonly #scope: RequestScope;
  readonly #querystring: string;
  #query: G['Querystring'] | undefined;
  #ip: string | undefined;
  #log: Logger | undefined;

  constructor(
    scope: RequestScope,
    id: string,
    raw: IncomingMessage,
    route: MatchedRoute,
    params: Record<string, string> | undefined,
    querystring: string,
  ) {
    this.#scope = scope;
    this.id = id;
    this.raw = raw;
    this.method = raw.method ?? 'GET';
    this.url = raw.url ?? '/';
    this.routeOptions = route;
    this.params = params ?? NO_PARAMS;
    this.#querystring = querystring;
  }

  get headers(): IncomingHttpHeaders {
    return this.raw.headers;
  }

  /** The query string's fields (`{}` without one); a field given twice is an array. */
  get query(): G['Querystring'] {
    return (this.#query ??= (this.#querystring.length === 0 ? {} : parseQueryString(this.#querystring)) as G['Querystring']);
  }

  /** The client's address: the socket's peer, or what a trusted proxy says. */
  get ip(): string {
    return (this.#ip ??= this.#scope.addressing.ip(this.raw));
  }

  /** The host the client asked for (X-Forwarded-Host from a trusted proxy). */
  get host(): string {
    return this.#scope.addressing.host(this.raw);
  }

  /** `http` or `https` as the client sees it. */
  get protocol(): string {
    return this.#scope.addressing.protocol(this.raw);
  }

  get socket(): Socket {
    return this.raw.socket;
  }

  /** The server's logger, its lines naming this request. */
  get log(): Logger {
    return (this.#log ??= this.#scope.log.child({ reqId: this.id }));
  }
}
