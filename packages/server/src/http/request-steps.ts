import type { IncomingMessage } from 'node:http';
import type { RequestContext } from '../context.js';

/** A request as the request steps see it (http/route-request.ts). */
export interface StepRequest {
  readonly id: string;
  readonly method: string;
  readonly url: string;
  readonly raw: IncomingMessage;
  /** The client's address: the socket's peer, or what a trusted proxy says. */
  readonly ip: string;
  /** The matched route's parameters (`{name}` on the package routes). */
  readonly params: unknown;
  /** Set by the request-context step; every later step and the route read it. */
  ctx: RequestContext;
  /** The matched route: its pattern (`url`, for metrics) and its flags. */
  readonly routeOptions: {
    readonly url?: string | undefined;
    readonly config?:
      { readonly openAccess?: boolean; readonly unmetered?: boolean; readonly budget?: 'page' | 'asset' } | undefined;
  };
}

/** A response as the request steps see it (http/route-reply.ts). */
export interface StepReply {
  /** Names are lowercase. */
  header(name: string, value: string): unknown;
  readonly statusCode: number;
  /** Milliseconds since the request arrived. */
  readonly elapsedTime: number;
}

/**
 * A step before the route's handler. It answers at once when it needs no promise: the error to
 * answer instead of the route, or undefined to go on; a promise of that when it has to wait.
 */
export type BeforeStepRun = (request: StepRequest, reply: StepReply) => Error | undefined | Promise<Error | undefined>;
/** A step just before the response's headers go out. */
export type SendStepRun = (reply: StepReply) => void;
/** A step once the response is out (counting, logging). It must not throw. */
export type AfterStepRun = (request: StepRequest, reply: StepReply) => void;

export interface Step<Run> {
  /** The step's name, as the list's test names it. */
  readonly name: string;
  readonly run: Run;
}

/**
 * The steps of every request, in order, around its route's own (http/exchange.ts runs them for
 * every route, and for requests no route matches).
 */
export interface RequestPipeline {
  /** Before the route's guards, its body and its handler. */
  readonly beforeHandler: readonly Step<BeforeStepRun>[];
  /** Just before the answer's headers are written. */
  readonly beforeSend: readonly Step<SendStepRun>[];
  /** Once the answer is out. */
  readonly afterResponse: readonly Step<AfterStepRun>[];
}
