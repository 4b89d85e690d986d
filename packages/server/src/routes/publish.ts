import type { Routes } from '../http/routes.js';
import type { RouteRequest } from '../http/route-request.js';
import type { RouteReply } from '../http/route-reply.js';
import { ProtocolError } from '@pkg/protocol';
import { setLimitHeaders } from '../plugins/rate-limit.js';
import { StreamedBody } from '../services/publish-body-receiver.js';
import type { BodyParser } from '../http/request-body.js';
import type { Services } from '../services/services.js';
import { otpOf } from './second-factor-guard.js';

/**
 * `PUT /<name>`: npm's publish, or npm's edit of the whole document (services/package-put.ts
 * does either, and everything they need). The body is handed over unread: the service refuses
 * what it can before reading it, and streams a tarball of any size into the blob store.
 */
export function publishRoutes(app: Routes, { services }: { services: Services }): void {
  const bodyLimit = services.packagePut.bodyLimit;
  // The body is handed over as a stream: the service reads it, within its limit.
  const parsers = { 'application/json': STREAMED_JSON };

  app.put<{ Params: { name: string }; Body: StreamedBody | undefined }>(
    '/:name',
    { bodyLimit, parsers },
    async (request, reply) => {
      const body = request.body instanceof StreamedBody ? request.body : undefined;
      const length = request.headers['content-length'];
      try {
        const result = await services.packagePut.put({
          ctx: request.ctx,
          name: request.params.name,
          body: body?.stream,
          declaredLength: length === undefined ? undefined : Number(length),
          otp: otpOf(request),
          address: request.ip,
        });
        if (result.publishLimit) setLimitHeaders(reply, result.publishLimit);
        return reply.code(result.created ? 201 : 200).send({ ok: true, id: result.id, rev: result.rev });
      } catch (err) {
        finishUnread(request, reply, body, err);
        throw err;
      }
    },
  );
}

const STREAMED_JSON: BodyParser = { kind: 'stream', parse: (stream) => new StreamedBody(stream) };

/** The most of an unread body that is read and dropped to keep the connection (see below). */
const DRAIN_LIMIT = 1024 * 1024;
/**
 * How the rest of a large unread body is read and dropped before the connection closes, as
 * nginx's lingering close does: until the client pauses for LINGER_IDLE_MS, or at most
 * LINGER_MAX_MS in all. A client on a slow link is still sending when the answer goes out, and
 * must be able to finish its upload to read the answer; closing while bytes still arrive resets
 * the connection, and the client sees a reset instead of the refusal's reason.
 */
const LINGER_IDLE_MS = 2000;
const LINGER_MAX_MS = 30_000;

/**
 * An answer given before the body was read to its end (401, 403, 413, malformed JSON). The rest
 * is read and dropped: closing a socket with unread bytes resets it, and the client may lose the
 * answer it has not read yet. A small rest is read to its end and the connection stays open; a
 * large one (or one over the limit, or of unknown length) is read while it keeps coming (see
 * LINGER_IDLE_MS), then the connection is closed: the rest of a body of up to a gigabyte is not
 * worth keeping the connection for.
 */
function finishUnread(request: RouteRequest, reply: RouteReply, body: StreamedBody | undefined, err: unknown): void {
  if (!(body instanceof StreamedBody) || body.stream.readableEnded) return;
  const raw = request.raw;
  // Drop the raw bytes, not what a Content-Encoding decoder would make of them.
  if (body.stream !== raw) raw.unpipe();
  raw.resume();
  const declared = Number(request.headers['content-length']);
  const tooLarge = err instanceof ProtocolError && err.code === 'PAYLOAD_TOO_LARGE';
  if (!tooLarge && Number.isSafeInteger(declared) && declared <= DRAIN_LIMIT) return;
  reply.raw.once('finish', () => {
    if (raw.readableEnded) return;
    const close = () => {
      clearTimeout(idle);
      clearTimeout(cap);
      raw.off('data', rearm);
      raw.socket?.destroy();
    };
    const idle = setTimeout(close, LINGER_IDLE_MS);
    const cap = setTimeout(close, LINGER_MAX_MS);
    const rearm = () => idle.refresh();
    raw.on('data', rearm);
    raw.once('end', () => {
      clearTimeout(idle);
      clearTimeout(cap);
      raw.off('data', rearm);
    });
  });
}
