import type { IncomingMessage } from 'node:http';
import type { RequestContext } from '../context.js';

/**
 * A request as the request steps see it. Fastify's request is one; the hot path's exchange is
 * the other (hot-path/hot-path.ts), so each step is written once for both paths.
 */
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

/** A response as the request steps see it (fastify's reply, or the hot path's exchange). */
export interface StepReply {
  /** Names are lowercase, as fastify stores them. */
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
  /** The hook's name in fastify (its route listing shows it) and in the list's test. */
  readonly name: string;
  readonly run: Run;
}

/**
 * The steps of every request, in order: both fastify (as hooks, plugins/request-pipeline.ts)
 * and the hot path run these lists, so a step added here runs on both paths.
 */
export interface RequestPipeline {
  /** Fastify's `onRequest`: before routing is acted on. */
  readonly beforeHandler: readonly Step<BeforeStepRun>[];
  /** Fastify's `onSend`. */
  readonly beforeSend: readonly Step<SendStepRun>[];
  /** Fastify's `onResponse`. */
  readonly afterResponse: readonly Step<AfterStepRun>[];
}

/**
 * The hooks only fastify runs, each with why the hot path has no use for it. Anything else a
 * route of the app runs is a step of the pipeline (test/http/request-pipeline.test.ts).
 */
export const FRAMEWORK_ONLY_HOOKS: Readonly<Record<string, string>> = {
  bodyEncoding: 'decompresses a request body; the hot path takes no request with a body',
  jsonDepthLimit: 'checks a parsed JSON body; the hot path takes no request with a body',
  uplinkWriteGuard: 'refuses writes to names an uplink covers; the hot path takes only GET',
  htmlResponses: "the web pages' security headers; the hot path serves no web page",
  recordChange: 'writes a change (or a refused attempt) to the audit log; the hot path takes only reads',
  noteRefusal: 'keeps the reason of a refused change for the audit log; the hot path takes only reads',
  // Fastify's own, on the HEAD route it adds beside each GET; the hot path leaves HEAD to fastify.
  headRouteOnSendHandler: 'drops the body of a HEAD answer; the hot path takes only GET',
};
