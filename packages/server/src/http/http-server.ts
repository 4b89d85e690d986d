import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import https from 'node:https';

type Listener = (request: IncomingMessage, response: ServerResponse) => void;

/** Longer than any client's idle keep-alive, so the client, not the server, closes an idle connection. */
const KEEP_ALIVE_TIMEOUT_MS = 72_000;

/**
 * The registry's HTTP or HTTPS server; `listener` is the app's (http/http-app.ts).
 */
export function createHttpServer(tls: { cert: Buffer; key: Buffer } | undefined, listener: Listener): http.Server {
  const server = tls ? https.createServer(tls, listener) : http.createServer(listener);
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  // No limit on a whole request's time: a large publish on a slow link may take long.
  server.requestTimeout = 0;
  return server;
}
