import type { FastifyInstance, FastifyReply, FastifyRequest, FastifyServerOptions } from 'fastify';
import pino from 'pino';

/** Where log lines go instead of stdout (tests capture them). */
export interface LogStream {
  write(line: string): void;
}

/**
 * JSON-lines request logs. Fastify logs one line per request on completion; the serializers
 * below keep what helps operators and drop what could carry a secret: no headers at all
 * (Authorization), and URLs of the token endpoint are redacted.
 */
export function loggerOptions(level: string, stream?: LogStream): FastifyServerOptions['logger'] {
  if (level === 'silent') return false;
  return {
    level,
    // Asynchronous stdout: lines written while a write is in flight go out together in the next
    // one, so under load the log costs a write per batch instead of a blocking write per request.
    // Pino flushes what is left when the process exits.
    stream: stream ?? pino.destination({ dest: 1, sync: false }),
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
}

/** The URL without secrets: tokens, passwords, and the secret paths of npm's web login. */
export function redactUrl(url: string): string {
  return url
    .replace(/\/-\/user\/token\/[^/?#]+/, '/-/user/token/[redacted]')
    .replace(/\/-\/(v1\/login\/done|web\/login)\/[^/?#]+/, '/-/$1/[redacted]')
    .replace(/([?&](?:token|password)=)[^&#]*/gi, '$1[redacted]');
}

/** One JSON line per request: what was asked, by whom, the outcome and the time taken. */
export function installRequestLog(app: FastifyInstance): void {
  app.addHook('onResponse', (request, reply, done) => {
    logRequestLine(request, reply);
    done();
  });
}

/** Writes the request's line; also called for requests fastify answers before routing. */
export function logRequestLine(request: FastifyRequest, reply: FastifyReply): void {
  request.log.info(
    {
      method: request.method,
      url: redactUrl(request.url),
      status: reply.statusCode,
      ms: Math.round(reply.elapsedTime * 100) / 100,
      tenant: request.ctx?.tenant || undefined,
      user: request.ctx?.caller?.user,
      ip: request.ip,
    },
    'request',
  );
}
