/** What a route declares about its request's parts, for its handler's types. */
export interface RouteGeneric {
  Params?: unknown;
  Querystring?: unknown;
  Body?: unknown;
}

/** Flags the request steps read (http/request-steps.ts). */
export interface RouteConfig {
  /**
   * Reachable without a token even on a registry whose reads need one (`readAccess: token`):
   * login, logout (the token is in the path), ping, the web pages (which check their own session).
   */
  readonly openAccess?: boolean;
  /** Not counted against rate limits: load-balancer probes and metric scrapes come every few seconds. */
  readonly unmetered?: boolean;
  /** Counted against the web interface's budget (pages, or their assets) instead of the API's limits. */
  readonly budget?: 'page' | 'asset';
}

/** What goes out as a body once serialized: text, bytes, a stream, or nothing. */
export type Payload = string | Buffer | NodeJS.ReadableStream | undefined;
