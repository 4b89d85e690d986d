import { fstatSync } from 'node:fs';
import pino, { type Logger } from 'pino';
import type { RequestContext } from '../context.js';
import type { AfterStepRun, Step, StepReply, StepRequest } from '../http/request-steps.js';

/** Where log lines go instead of stdout (tests capture them). */
export interface LogStream {
  write(line: string): void;
}

/**
 * The server's JSON-lines log (pino). One line per request (RequestLog below); the serializers
 * keep what helps operators and drop what could carry a secret: no headers at all
 * (Authorization), and URLs of the token endpoint are redacted.
 */
export function createLogger(level: string, stream?: LogStream): Logger {
  if (level === 'silent') return pino({ level: 'silent' });
  const options = {
    level,
    redact: { paths: ['req.headers.authorization', 'headers.authorization', 'password', 'token'], remove: true },
    serializers: {
      // Never log headers (Authorization) or bodies (passwords, tarballs).
      req(request: { method: string; url: string }) {
        return { method: request.method, url: redactUrl(request.url) };
      },
      res(reply: { statusCode: number }) {
        return { statusCode: reply.statusCode };
      },
    },
  };
  // Lines go out in one write per turn of the event loop (RequestLog below). Into a file that
  // write is made at once, as Node writes its own stdout to a file: a write into the page
  // cache costs less than handing it to the thread pool and being told it is done. A pipe or
  // a terminal can be full, and a blocking write would stall every request: there lines written
  // while a write is in flight go out together in the next one. Pino flushes what is left when
  // the process exits.
  return pino(options, stream ?? pino.destination({ dest: 1, sync: writesWithoutWaiting(1) }));
}

/** Whether a write to `fd` never waits for a reader: a regular file (not a pipe, socket or terminal). */
export function writesWithoutWaiting(fd: number): boolean {
  try {
    return fstatSync(fd).isFile();
  } catch {
    return false;
  }
}

/** Printable ASCII without `"` or `\\`: quoted as it is. */
const PLAIN = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

/** A JSON string literal: most values need no escaping, and checking is cheaper than JSON.stringify. */
function quote(value: string): string {
  return PLAIN.test(value) ? `"${value}"` : JSON.stringify(value);
}

/** The URL without secrets: tokens, passwords, and the secret paths of npm's web login. */
export function redactUrl(url: string): string {
  // Most URLs (documents, tarballs) hold nothing to redact: skip the expressions.
  if (!url.includes('/-/') && !url.includes('?')) return url;
  return url
    .replace(/\/-\/user\/token\/[^/?#]+/, '/-/user/token/[redacted]')
    .replace(/\/-\/(v1\/login\/done|web\/login|web\/invitation)\/[^/?#]+/, '/-/$1/[redacted]')
    .replace(/([?&](?:token|password)=)[^&#]*/gi, '$1[redacted]');
}

/** One JSON line per request: what was asked, by whom, the outcome and the time taken. */
export function requestLogStep(requestLog: RequestLog): Step<AfterStepRun> {
  return { name: 'requestLog', run: (request, reply) => logRequestLine(requestLog, request, reply) };
}

/** Writes the request's line. */
export function logRequestLine(requestLog: RequestLog, request: StepRequest, reply: StepReply): void {
  requestLog.write(request.id, request.method, request.url, reply.statusCode, reply.elapsedTime, request.ctx, request.ip);
}

/**
 * The request lines, one per request, written by the last request steps. A line is what pino
 * would write for `log.child({reqId}).info(fields, 'request')` — level, time, the logger's
 * bindings, the fields, the message — formatted here with one JSON.stringify and handed to the
 * logger's destination: pino's general path (redaction, serializers, its own escaping) cost
 * several microseconds per request for fields that never hold a secret (the URL is redacted).
 */
export class RequestLog {
  readonly #logger: Logger;
  readonly #destination: LogStream | undefined;
  readonly #bindings: string;
  /** Lines of this turn of the event loop, handed to the destination together (see #add). */
  #batch = '';
  #flushing: NodeJS.Immediate | undefined;

  constructor(logger: Logger) {
    this.#logger = logger;
    const pinoLogger = logger as unknown as Record<symbol, unknown> & { isLevelEnabled?(level: string): boolean };
    const destination = pinoLogger[pino.symbols.streamSym] as LogStream | undefined;
    const bindings = pinoLogger[pino.symbols.chindingsSym];
    // A silent logger has neither.
    const usable = destination !== undefined && typeof bindings === 'string' && pinoLogger.isLevelEnabled?.('info') === true;
    this.#destination = usable ? destination : undefined;
    this.#bindings = usable ? bindings : '';
  }

  write(
    reqId: string,
    method: string,
    url: string,
    status: number,
    ms: number,
    ctx: RequestContext | null | undefined,
    ip: string | undefined,
  ): void {
    url = redactUrl(url);
    ms = Math.round(ms * 100) / 100;
    const tenant = ctx?.tenant || undefined;
    const user = ctx?.caller?.user;
    if (this.#destination === undefined) {
      this.#logger.info({ reqId, method, url, status, ms, tenant, user, ip }, 'request');
      return;
    }
    // Field by field, in pino's order, leaving out what is undefined as pino (and JSON) does.
    let line = `{"level":30,"time":${Date.now()}${this.#bindings},"reqId":${quote(reqId)},"method":${quote(method)},"url":${quote(url)},"status":${status},"ms":${ms}`;
    if (tenant !== undefined) line += `,"tenant":${quote(tenant)}`;
    if (user !== undefined) line += `,"user":${quote(user)}`;
    if (ip !== undefined) line += `,"ip":${quote(ip)}`;
    this.#add(`${line},"msg":"request"}\n`);
  }

  /** Hands the lines not yet written to the destination (the server calls it when it closes). */
  flush(): void {
    if (this.#flushing !== undefined) clearImmediate(this.#flushing);
    this.#flushing = undefined;
    if (this.#batch === '') return;
    const batch = this.#batch;
    this.#batch = '';
    this.#destination?.write(batch);
  }

  /**
   * pino's destination measures the bytes of its pending text at every write: one line at a
   * time, it copied ~6 KB of text per request under load (an allocation profile), a third of
   * all a request allocates. A batch per turn of the event loop is measured once. A crash loses
   * the lines of its own turn (pino's exit handler flushes only what it was handed).
   */
  #add(line: string): void {
    this.#batch += line;
    if (this.#batch.length >= MAX_BATCH) this.flush();
    else this.#flushing ??= setImmediate(this.#flushLater);
  }

  readonly #flushLater = () => {
    this.#flushing = undefined;
    this.flush();
  };
}

/** What pino's destination writes at once (its maxWrite). */
const MAX_BATCH = 16 * 1024;
