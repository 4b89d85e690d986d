import type { OutgoingHttpHeader, ServerResponse } from 'node:http';
import type { StepReply } from './request-steps.js';
import type { Payload } from './route-shapes.js';

/** The content type of a JSON body the server serializes. */
export const JSON_UTF8 = 'application/json; charset=utf-8';
const PLAIN_UTF8 = 'text/plain; charset=utf-8';
const OCTET_STREAM = 'application/octet-stream';

/** What the request's lifecycle does with a payload once a reply has it (http/exchange.ts). */
export interface Delivery {
  deliver(payload: Payload): void;
  /** Milliseconds since the request arrived. */
  readonly elapsed: number;
}

/**
 * The answer being made: status and headers set by the steps, the route and the hooks, in that
 * order, then one `send`. Header names are stored lowercase.
 */
export class RouteReply implements StepReply {
  readonly raw: ServerResponse;
  statusCode = 200;
  /** Whether `send` was called (the answer may still be on its way through the send hooks). */
  sent = false;
  /** Headers in the order they were set, written with one `writeHead`. */
  headers: Record<string, OutgoingHttpHeader> = {};
  readonly #delivery: Delivery;

  constructor(raw: ServerResponse, delivery: Delivery) {
    this.raw = raw;
    this.#delivery = delivery;
  }

  get elapsedTime(): number {
    return this.#delivery.elapsed;
  }

  code(status: number): this {
    this.statusCode = status;
    return this;
  }

  header(name: string, value: OutgoingHttpHeader): this {
    this.headers[name.toLowerCase()] = value;
    return this;
  }

  getHeader(name: string): OutgoingHttpHeader | undefined {
    return this.headers[name.toLowerCase()];
  }

  hasHeader(name: string): boolean {
    return this.headers[name.toLowerCase()] !== undefined;
  }

  removeHeader(name: string): this {
    delete this.headers[name.toLowerCase()];
    return this;
  }

  type(contentType: string): this {
    this.headers['content-type'] = contentType;
    return this;
  }

  redirect(location: string, status = 302): this {
    this.headers.location = location;
    this.statusCode = status;
    return this.send();
  }

  /**
   * Sends `value`: bytes and streams as they are, text as text (a JSON text when the content
   * type says JSON), anything else serialized as JSON. A second send is ignored.
   */
  send(value?: unknown): this {
    if (this.sent) return this;
    this.sent = true;
    this.#delivery.deliver(this.#serialized(value));
    return this;
  }

  #serialized(value: unknown): Payload {
    if (value === undefined) return undefined;
    const contentType = this.headers['content-type'];
    if (Buffer.isBuffer(value)) {
      if (contentType === undefined) this.headers['content-type'] = OCTET_STREAM;
      return value;
    }
    if (typeof value === 'object' && value !== null && typeof (value as NodeJS.ReadableStream).pipe === 'function') {
      return value as NodeJS.ReadableStream;
    }
    if (typeof value === 'string') {
      if (contentType === undefined) this.headers['content-type'] = PLAIN_UTF8;
      return value;
    }
    if (contentType === undefined) this.headers['content-type'] = JSON_UTF8;
    return JSON.stringify(value);
  }
}
