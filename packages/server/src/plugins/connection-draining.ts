import type { FastifyInstance } from 'fastify';
import { ProtocolError } from '@pkg/protocol';

/**
 * Lets `app.close()` finish as soon as the in-flight requests have: once closing starts, every
 * response says `Connection: close`, so keep-alive sockets end with their last response instead
 * of holding the shutdown until the timeout. A request that still arrives on an open connection
 * gets 503 in the registry's error shape (fastify's own 503 has another body).
 */
export function installConnectionDraining(app: FastifyInstance): DrainState {
  let draining = false;
  let sweeper: NodeJS.Timeout | undefined;
  app.addHook('preClose', async () => {
    draining = true;
    // A socket can turn idle just after close() looked for idle ones (its last response was
    // still being flushed); without a sweep it would hold the shutdown for the keep-alive timeout.
    sweeper = setInterval(() => app.server.closeIdleConnections(), 50);
    sweeper.unref();
  });
  app.addHook('onClose', async () => {
    clearInterval(sweeper);
  });
  // Callback-style hooks: they run on every request, and a synchronous callback costs no promise.
  app.addHook('onRequest', (_request, _reply, done) => {
    if (draining) return done(new ProtocolError('SERVICE_UNAVAILABLE', 'The server is shutting down; retry shortly'));
    done();
  });
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (draining) reply.header('connection', 'close');
    done(null, payload);
  });
  // A response whose headers went out before closing began (a streamed tarball) leaves its
  // keep-alive socket busy when close() looks for idle ones: close it once the response is done.
  const state: DrainState = {
    get draining() {
      return draining;
    },
    responseDone() {
      if (draining) setImmediate(() => app.server.closeIdleConnections());
    },
  };
  app.addHook('onResponse', (_request, _reply, done) => {
    state.responseDone();
    done();
  });
  return state;
}

/** Whether the server is shutting down, for requests answered outside fastify (hot-path/). */
export interface DrainState {
  readonly draining: boolean;
  /** Call when such a response has ended: while draining, its socket is closed once idle. */
  responseDone(): void;
}
