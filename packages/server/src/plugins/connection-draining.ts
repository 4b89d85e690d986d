import type { FastifyInstance } from 'fastify';
import { ProtocolError } from '@pkg/protocol';
import type { AfterStepRun, BeforeStepRun, SendStepRun, Step } from '../http/request-steps.js';

/**
 * Lets `app.close()` finish as soon as the in-flight requests have: once closing starts, every
 * response says `Connection: close` (closeWhileDrainingStep), so keep-alive sockets end with
 * their last response instead of holding the shutdown until the timeout. A request that still
 * arrives on an open connection gets 503 in the registry's error shape (fastify's own 503 has
 * another body). The request steps are below; this installs what happens when closing starts.
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
  // A response whose headers went out before closing began (a streamed tarball) leaves its
  // keep-alive socket busy when close() looks for idle ones: close it once the response is done.
  return {
    get draining() {
      return draining;
    },
    responseDone() {
      if (draining) setImmediate(() => app.server.closeIdleConnections());
    },
  };
}

/** Whether the server is shutting down, for the request steps below. */
export interface DrainState {
  readonly draining: boolean;
  /** Call when a response has ended: while draining, its socket is closed once idle. */
  responseDone(): void;
}

/** A request that arrives while closing gets 503 in the registry's error shape. */
export function refuseWhileDrainingStep(drain: DrainState): Step<BeforeStepRun> {
  return {
    name: 'refuseWhileDraining',
    run: () =>
      drain.draining ? new ProtocolError('SERVICE_UNAVAILABLE', 'The server is shutting down; retry shortly') : undefined,
  };
}

/** Every response while closing says `Connection: close`. */
export function closeWhileDrainingStep(drain: DrainState): Step<SendStepRun> {
  return {
    name: 'closeWhileDraining',
    run(reply) {
      if (drain.draining) reply.header('connection', 'close');
    },
  };
}

export function responseDoneStep(drain: DrainState): Step<AfterStepRun> {
  return { name: 'responseDone', run: () => drain.responseDone() };
}
