import type { BodyParser } from './request-body.js';
import type { RouteReply } from './route-reply.js';
import type { RouteRequest } from './route-request.js';
import type { Payload, RouteConfig, RouteGeneric } from './route-shapes.js';

export type { Payload, RouteConfig, RouteGeneric } from './route-shapes.js';

/**
 * A route's handler: it answers with `reply` (sendAnswer, reply.send), or returns what to send
 * (an object is sent as JSON), or a promise of either. No promise when it needs none: the hot
 * reads answer from memory without one.
 */
export type Handler<G extends RouteGeneric = RouteGeneric> = (request: RouteRequest<G>, reply: RouteReply) => unknown;

/** A step of one route's own before its handler (the uplink guard): an error answers instead. */
export type RouteGuard = (request: RouteRequest, reply: RouteReply) => Error | undefined | Promise<Error | undefined>;
/** A change to the payload just before it is written (the web pages' headers, the audit log). */
export type SendHook = (request: RouteRequest, reply: RouteReply, payload: Payload) => Payload | Promise<Payload>;
/** Told of a failure before the error handler answers it (the audit log keeps the reason). */
export type ErrorHook = (request: RouteRequest, err: Error) => void;
/** Answers a failure: as the handler does, with `reply` or by returning what to send. */
export type ErrorHandler = (err: Error, request: RouteRequest, reply: RouteReply) => unknown;

export type Method = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface RouteOptions {
  /** The largest body, after decompression; default: the server's `maxBodySize`. */
  bodyLimit?: number;
  config?: RouteConfig;
  /** A GET also answers HEAD (without its body) unless this is false or a HEAD route exists. */
  exposeHeadRoute?: boolean;
  /** Body parsers by media type, in place of the group's (publish streams its JSON body). */
  parsers?: Readonly<Record<string, BodyParser>>;
}

/** A route as registered, which `onRoute` listeners may extend. */
export interface RouteDefinition {
  readonly method: Method;
  readonly url: string;
  config: RouteConfig | undefined;
  /** Set for routes that take a body (the server's default unless the route names its own). */
  bodyLimit: number | undefined;
  readonly handler: Handler;
  guards: RouteGuard[];
  onSend: SendHook[];
  onError: ErrorHook[];
  parsers: Readonly<Record<string, BodyParser>>;
  errorHandler: ErrorHandler | undefined;
  /** A HEAD answered by a GET's handler: the body is dropped. */
  readonly head: boolean;
}

/** What a group of routes shares (the web pages: their budget, headers, form parser, error pages). */
export interface GroupSettings {
  config?: RouteConfig | ((url: string) => RouteConfig);
  onSend?: SendHook;
  parsers?: Readonly<Record<string, BodyParser>>;
  errorHandler?: ErrorHandler;
}

type Register = <G extends RouteGeneric = RouteGeneric>(
  url: string,
  optionsOrHandler: RouteOptions | Handler<G>,
  handler?: Handler<G>,
) => void;

/**
 * Where routes are declared: the whole server's, or a group's with settings of its own. Every
 * route of every group lands in the one table the server dispatches from (http/http-app.ts).
 */
export class Routes {
  readonly get: Register = (url, a, b) => this.#add('GET', url, a, b);
  readonly head: Register = (url, a, b) => this.#add('HEAD', url, a, b);
  readonly post: Register = (url, a, b) => this.#add('POST', url, a, b);
  readonly put: Register = (url, a, b) => this.#add('PUT', url, a, b);
  readonly patch: Register = (url, a, b) => this.#add('PATCH', url, a, b);
  readonly delete: Register = (url, a, b) => this.#add('DELETE', url, a, b);
  readonly #sink: (route: RouteDefinition) => void;
  readonly #settings: readonly GroupSettings[];
  readonly #listeners: ((route: RouteDefinition) => void)[];
  readonly #parsers: Readonly<Record<string, BodyParser>>;

  constructor(
    sink: (route: RouteDefinition) => void,
    parsers: Readonly<Record<string, BodyParser>>,
    settings: readonly GroupSettings[] = [],
    listeners: ((route: RouteDefinition) => void)[] = [],
  ) {
    this.#sink = sink;
    this.#parsers = parsers;
    this.#settings = settings;
    this.#listeners = listeners;
  }

  /** Routes declared from now on, here and in groups made from here, are shown to `listener` first. */
  onRoute(listener: (route: RouteDefinition) => void): void {
    this.#listeners.push(listener);
  }

  /** A group: routes declared through it get `settings` on top of this one's. */
  group(settings: GroupSettings): Routes {
    const parsers = settings.parsers ? { ...this.#parsers, ...settings.parsers } : this.#parsers;
    return new Routes(this.#sink, parsers, [...this.#settings, settings], [...this.#listeners]);
  }

  #add(method: Method, url: string, a: RouteOptions | Handler<never>, b: Handler<never> | undefined): void {
    const options: RouteOptions = typeof a === 'function' ? {} : a;
    const handler = (typeof a === 'function' ? a : b!) as Handler;
    let config = options.config;
    let errorHandler: ErrorHandler | undefined;
    const onSend: SendHook[] = [];
    for (const group of this.#settings) {
      if (group.config) config = { ...(typeof group.config === 'function' ? group.config(url) : group.config), ...config };
      if (group.onSend) onSend.push(group.onSend);
      if (group.errorHandler) errorHandler = group.errorHandler;
    }
    const define = (routeMethod: Method, head: boolean): RouteDefinition => ({
      method: routeMethod,
      url,
      config,
      bodyLimit: options.bodyLimit,
      handler,
      guards: [],
      onSend: [...onSend],
      onError: [],
      parsers: options.parsers ?? this.#parsers,
      errorHandler,
      head,
    });
    const routes = [define(method, false)];
    if (method === 'GET' && options.exposeHeadRoute !== false) routes.push(define('HEAD', true));
    for (const route of routes) {
      for (const listener of this.#listeners) listener(route);
      this.#sink(route);
    }
  }
}
