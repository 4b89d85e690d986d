import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import https from 'node:https';

type Listener = (request: IncomingMessage, response: ServerResponse) => void;

/** Fastify's defaults, which it applies only to servers it creates itself. */
const KEEP_ALIVE_TIMEOUT_MS = 72_000;

/**
 * The registry's HTTP or HTTPS server, created for fastify (its `serverFactory`) so that each
 * request can be offered to the hot path before fastify's handler.
 */
export function createHttpServer(tls: { cert: Buffer; key: Buffer } | undefined, listener: Listener): http.Server {
  const server = tls ? https.createServer(tls, listener) : http.createServer(listener);
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  // No limit on a whole request's time (fastify's default): a large publish on a slow link may take long.
  server.requestTimeout = 0;
  return server;
}
