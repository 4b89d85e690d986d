import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { safePath } from './safe-path.js';

export interface InFlightRequest {
  method: string;
  /** The path without its query string, a token in it redacted. */
  url: string;
  /** How long it has been running. */
  ms: number;
}

/**
 * The requests a server is answering, seen from the HTTP server itself (whatever route
 * answers them): at the shutdown timeout, each one cut off is logged.
 */
export function trackInFlightRequests(server: Pick<Server, 'on'>): { list(): InFlightRequest[] } {
  const running = new Map<IncomingMessage, number>();
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    running.set(request, performance.now());
    response.once('close', () => running.delete(request));
  });
  return {
    list: () =>
      [...running].map(([request, started]) => ({
        method: request.method ?? '',
        url: safePath(request.url ?? ''),
        ms: Math.round(performance.now() - started),
      })),
  };
}
