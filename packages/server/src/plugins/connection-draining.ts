import type { Server } from 'node:http';
import { ProtocolError } from '@pkg/protocol';
import type { AfterStepRun, BeforeStepRun, SendStepRun, Step } from '../http/request-steps.js';

/** The server's lifecycle as draining needs it (http/http-app.ts). */
export interface DrainedServer {
  readonly server: Server;
  onPreClose(hook: () => void): void;
  onClose(hook: () => void): void;
}

/**
 * Lets `app.close()` finish as soon as the in-flight requests have: once closing starts, every
 * response says `Connection: close` (closeWhileDrainingStep), so keep-alive sockets end with
 * their last response instead of holding the shutdown until the timeout. A request that still
 * arrives on an open connection gets 503 in the registry's error shape. The request steps are
 * below; `attach` installs what happens when closing starts.
 */
export class ConnectionDraining implements DrainState {
  #draining = false;
  #server: Server | undefined;
  #sweeper: NodeJS.Timeout | undefined;

  get draining(): boolean {
    return this.#draining;
  }

  attach(app: DrainedServer): void {
    this.#server = app.server;
    app.onPreClose(() => {
      this.#draining = true;
      // A socket can turn idle just after close() looked for idle ones (its last response was
      // still being flushed); without a sweep it would hold the shutdown for the keep-alive timeout.
      this.#sweeper = setInterval(() => app.server.closeIdleConnections(), 50);
      this.#sweeper.unref();
    });
    app.onClose(() => clearInterval(this.#sweeper));
  }

  /**
   * A response whose headers went out before closing began (a streamed tarball) leaves its
   * keep-alive socket busy when close() looks for idle ones: close it once the response is done.
   */
  responseDone(): void {
    if (this.#draining) setImmediate(() => this.#server?.closeIdleConnections());
  }
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
