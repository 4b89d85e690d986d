import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import { errorBody } from '@pkg/protocol';
import { readBody } from './request-body.js';
import type { AfterStepRun, RequestPipeline } from './request-steps.js';
import { JSON_UTF8, RouteReply, type Delivery } from './route-reply.js';
import { RouteRequest, type MatchedRoute, type RequestScope } from './route-request.js';
import type { ErrorHandler, Payload, RouteDefinition, RouteGuard } from './routes.js';

/** What every exchange of one server shares. */
export interface ExchangeParts {
  readonly scope: RequestScope;
  readonly pipeline: RequestPipeline;
  /** The body limit of routes that name none. */
  readonly bodyLimit: number;
  /** Answers what a route's own error handler does not (the API's JSON errors). */
  readonly errorHandler: ErrorHandler;
}

/**
 * A route ready to dispatch to: its definition, and the lists its requests run through, made
 * once when the server starts (the request steps, then the route's own guards).
 */
export class CompiledRoute {
  readonly definition: RouteDefinition;
  readonly matched: MatchedRoute;
  readonly before: readonly RouteGuard[];
  readonly takesBody: boolean;

  /**
   * `pipeline` undefined: no request step before the handler (URLs refused before routing).
   * `matched` false: the route stands for requests no route matched (url undefined, as the
   * metrics count them).
   */
  constructor(definition: RouteDefinition, pipeline: RequestPipeline | undefined, matched = true) {
    this.definition = definition;
    this.matched = matched
      ? { url: definition.url, config: definition.config, bodyLimit: definition.bodyLimit }
      : { url: undefined, config: undefined, bodyLimit: undefined };
    this.before = [...(pipeline?.beforeHandler.map((step) => step.run) ?? []), ...definition.guards];
    this.takesBody = definition.method !== 'GET' && definition.method !== 'HEAD';
  }
}

/**
 * One request from arrival to the end of its response: the request steps, the route's guards,
 * the body, the handler, the send hooks, the write, then the steps after the response. Each part
 * runs at once when it needs no promise, so an answer from memory costs none.
 */
export class Exchange implements Delivery {
  readonly request: RouteRequest;
  readonly reply: RouteReply;
  readonly #parts: ExchangeParts;
  readonly #route: CompiledRoute;
  readonly #response: ServerResponse;
  readonly #started = performance.now();
  #elapsed = -1;
  /** Error handlers tried for this request: the route's, then the server's, then a bare 500. */
  #failures = 0;
  #writing = false;
  #finished = false;

  constructor(
    parts: ExchangeParts,
    route: CompiledRoute,
    raw: IncomingMessage,
    response: ServerResponse,
    id: string,
    params: Record<string, string> | undefined,
    querystring: string,
  ) {
    this.#parts = parts;
    this.#route = route;
    this.#response = response;
    this.request = new RouteRequest(parts.scope, id, raw, route.matched, params, querystring);
    this.reply = new RouteReply(response, this);
  }

  get elapsed(): number {
    return this.#elapsed >= 0 ? this.#elapsed : performance.now() - this.#started;
  }

  run(): void {
    this.#before(0);
  }

  #before(first: number): void {
    const steps = this.#route.before;
    for (let i = first; i < steps.length; i++) {
      let result;
      try {
        result = steps[i]!(this.request, this.reply);
      } catch (err) {
        return this.#fail(err);
      }
      if (result instanceof Promise) {
        result.then(
          (failure) => (failure ? this.#fail(failure) : this.#before(i + 1)),
          (err: unknown) => this.#fail(err),
        );
        return;
      }
      if (result) return this.#fail(result);
    }
    if (this.#route.takesBody) this.#body();
    else this.#handle();
  }

  #body(): void {
    const definition = this.#route.definition;
    let body;
    try {
      body = readBody(this.request.raw, definition.parsers, definition.bodyLimit, this.#parts.bodyLimit);
    } catch (err) {
      return this.#fail(err);
    }
    if (body instanceof Promise) {
      body.then(
        (value: unknown) => {
          this.request.body = value;
          this.#handle();
        },
        (err: unknown) => this.#fail(err),
      );
      return;
    }
    this.request.body = body;
    this.#handle();
  }

  #handle(): void {
    let result;
    try {
      result = this.#route.definition.handler(this.request, this.reply);
    } catch (err) {
      return this.#fail(err);
    }
    this.#settle(result);
  }

  /** What a handler (or error handler) gave back: the reply, a value to send, or a promise of one. */
  #settle(result: unknown): void {
    if (result === this.reply) return;
    if (result instanceof Promise) {
      result.then(
        (value: unknown) => {
          if (value === this.reply || this.reply.sent) return;
          if (value === undefined) return this.#fail(new Error(`the route ${this.#route.matched.url} answered nothing`));
          this.reply.send(value);
        },
        (err: unknown) => this.#fail(err),
      );
      return;
    }
    // A handler without a promise that returns nothing answers later, with `reply`.
    if (result !== undefined && !this.reply.sent) this.reply.send(result);
  }

  #fail(thrown: unknown): void {
    const err = thrown instanceof Error ? thrown : new Error(String(thrown));
    if (this.#writing || this.#response.headersSent) {
      // Too late to answer: the response is on its way (a send hook or a stream failed).
      this.request.log.error({ err }, 'unhandled error after the response started');
      if (!this.#response.writableEnded) this.#response.destroy();
      return;
    }
    const failures = this.#failures++;
    const definition = this.#route.definition;
    if (failures === 0) for (const hook of definition.onError) hook(this.request, err);
    const reply = this.reply;
    reply.sent = false;
    delete reply.headers['content-type'];
    delete reply.headers['content-length'];
    const handler: ErrorHandler | undefined =
      failures === 0
        ? (definition.errorHandler ?? this.#parts.errorHandler)
        : failures === 1 && definition.errorHandler
          ? this.#parts.errorHandler
          : undefined;
    if (handler === undefined) {
      this.request.log.error({ err }, 'unhandled error');
      reply.headers = {};
      reply.code(500).type(JSON_UTF8).send(errorBody('INTERNAL_ERROR', 'The server failed to handle the request'));
      return;
    }
    let result;
    try {
      result = handler(err, this.request, reply);
    } catch (next) {
      return this.#fail(next);
    }
    this.#settle(result);
  }

  /** Called by `reply.send` with the serialized payload. */
  deliver(payload: Payload): void {
    const beforeSend = this.#parts.pipeline.beforeSend;
    for (let i = 0; i < beforeSend.length; i++) beforeSend[i]!.run(this.reply);
    this.#sendHooks(0, payload);
  }

  #sendHooks(first: number, payload: Payload): void {
    const hooks = this.#route.definition.onSend;
    for (let i = first; i < hooks.length; i++) {
      let result;
      try {
        result = hooks[i]!(this.request, this.reply, payload);
      } catch (err) {
        return this.#fail(err);
      }
      if (result instanceof Promise) {
        result.then(
          (next: Payload) => this.#sendHooks(i + 1, next),
          (err: unknown) => this.#fail(err),
        );
        return;
      }
      payload = result;
    }
    this.#write(payload);
  }

  #write(payload: Payload): void {
    const response = this.#response;
    if (response.headersSent || response.destroyed) return this.#done();
    this.#writing = true;
    const reply = this.reply;
    const headers = reply.headers;
    const status = reply.statusCode;
    if (this.#route.definition.head) payload = headPayload(headers, payload);
    else if (payload === undefined) {
      // A HEAD route of its own says the length of what a GET would send.
      if (status >= 200 && status !== 204 && status !== 304 && this.request.method !== 'HEAD') headers['content-length'] = '0';
    } else if (typeof payload === 'string') headers['content-length'] = String(Buffer.byteLength(payload));
    else if (Buffer.isBuffer(payload)) headers['content-length'] = String(payload.length);
    response.writeHead(status, headers);
    if (payload === undefined || typeof payload === 'string' || Buffer.isBuffer(payload)) {
      // Handed to the socket whole: the request is done.
      response.end(payload);
      return this.#done();
    }
    const stream = payload as Readable;
    response.once('finish', () => this.#done());
    response.once('close', () => {
      // A client that goes away releases the body (a file left open, an uplink download's
      // stream left waiting).
      if (!response.writableFinished) stream.destroy();
      this.#done();
    });
    // A body that fails after its headers went out can only cut the response short.
    stream.once('error', () => response.destroy());
    stream.pipe(response);
  }

  #done(): void {
    if (this.#finished) return;
    this.#finished = true;
    this.#elapsed = performance.now() - this.#started;
    const after: readonly { run: AfterStepRun }[] = this.#parts.pipeline.afterResponse;
    try {
      for (let i = 0; i < after.length; i++) after[i]!.run(this.request, this.reply);
    } catch (err) {
      // The response is out; a failure to count or log it must not take the process down.
      this.request.log.error({ err }, 'recording a request failed');
    }
  }
}

/** A HEAD answered by a GET's handler: the GET's length, no body. */
function headPayload(headers: Record<string, unknown>, payload: Payload): undefined {
  if (payload === undefined) headers['content-length'] = '0';
  else if (typeof payload === 'string') headers['content-length'] = String(Buffer.byteLength(payload));
  else if (Buffer.isBuffer(payload)) headers['content-length'] = String(payload.length);
  else {
    // Never read: the file it would read is closed.
    const stream = payload as Readable;
    stream.on('error', () => undefined);
    stream.destroy();
  }
  return undefined;
}
