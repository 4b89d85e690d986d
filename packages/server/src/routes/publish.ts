import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { payloadTooLarge, ProtocolError } from '@pkg/protocol';
import type { Config } from '../config/config.js';
import { countPublish } from '../plugins/rate-limit.js';
import { StreamedBody } from '../services/publish-body-receiver.js';
import { isPublishBody } from '../services/publish-request.js';
import { usageLimitOf } from '../services/quotas.js';
import type { Services } from '../services/services.js';
import { packageNameParam, refusePublishOnly, requirePublisher } from './guards.js';
import { requireWriteCode } from './second-factor-guard.js';
import { noteChange } from '../plugins/change-recording.js';
import { notePackageChanges, versionsOf } from './package-change-notes.js';

const MiB = 1024 * 1024;

/**
 * Body limit of the routes that take a whole package document: the tarball travels base64
 * inside the JSON (4/3 of its size), plus room for the document itself.
 */
export function documentBodyLimit(config: Config): number {
  return Math.ceil((config.maxTarballSize * 4) / 3) + MiB;
}

/**
 * `PUT /<name>`: npm's publish (a body with `_attachments`), or npm's edit of the document
 * without attachments (`npm deprecate` sends the whole document back this way). The body is
 * read as a stream, after the caller is known to be allowed to write: a tarball of any size
 * goes to the blob store piece by piece (services/publish-body-receiver.ts).
 */
export async function publishRoutes(
  app: FastifyInstance,
  { services, config }: { services: Services; config: Config },
): Promise<void> {
  // This plugin's own parser (fastify scopes parsers to the plugin): the handler reads the body.
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', (_request, payload, done) => done(null, new StreamedBody(payload)));
  const bodyLimit = documentBodyLimit(config);

  app.put<{ Params: { name: string }; Body: StreamedBody | undefined }>('/:name', { bodyLimit }, async (request, reply) => {
    const body = request.body;
    const { tenant } = request.ctx;
    const quota = usageLimitOf(request.ctx.settings);
    let name, caller, received;
    try {
      name = packageNameParam(request.params.name);
      caller = requirePublisher(request);
      // Before the body: a publish that needs a code is refused without reading its tarball.
      await requireWriteCode(services, request, caller, 'Publishing');
      if (!(body instanceof StreamedBody)) throw new ProtocolError('BAD_REQUEST', 'The request body is empty');
      const header = request.headers['content-length'];
      const declaredLength = header === undefined ? undefined : Number(header);
      if (declaredLength !== undefined && declaredLength > bodyLimit) {
        throw payloadTooLarge('request body', bodyLimit);
      }
      // Only the body tells a publish from npm's other writes here, but a caller over the publish
      // limit is refused before uploading it: while over the limit, these writes wait too.
      await services.rateLimits.refuseIfUsedUp('publish', tenant, caller.user, request.ctx.settings.rateLimitPublish);
      received = await services.publish.receive(tenant, caller, name, body.stream, { bodyLimit, declaredLength, quota });
    } catch (err) {
      finishUnread(request, reply, body, err);
      throw err;
    }
    try {
      if (isPublishBody(received.document)) {
        if (request.ctx.settings.requireTwoFactor && caller.secondFactor === undefined) {
          throw new ProtocolError(
            'FORBIDDEN',
            'This registry requires two-factor sign-in to publish: turn it on first (npm profile enable-2fa auth-and-writes, or the web account page)',
          );
        }
        await countPublish(request, reply, services.rateLimits);
        const { created, rev } = await services.publish.publish(tenant, caller, name, received, quota);
        for (const version of versionsOf(received.document)) {
          noteChange(request, {
            action: 'package.publish',
            package: name,
            target: `${name}@${version}`,
            details: { version },
          });
        }
        return reply.code(created ? 201 : 200).send({ ok: true, id: name, rev });
      }
      refusePublishOnly(caller);
      const { rev, changes } = await services.packageUpdates.update(tenant, caller, name, received.document, {
        rev: undefined,
        allowRemoval: false,
      });
      notePackageChanges(request, name, changes);
      return reply.code(200).send({ ok: true, id: name, rev });
    } finally {
      await received.discard();
    }
  });
}

/** The most of an unread body that is read and dropped to keep the connection (see below). */
const DRAIN_LIMIT = 1024 * 1024;
/** How long the rest of a large unread body is read and dropped before the connection closes. */
const LINGER_MS = 1000;

/**
 * An answer given before the body was read to its end (401, 403, 413, malformed JSON). The rest
 * is read and dropped: closing a socket with unread bytes resets it, and the client may lose the
 * answer it has not read yet. A small rest is read to its end and the connection stays open; a
 * large one (or one over the limit, or of unknown length) is read for LINGER_MS after the answer
 * went out, then the connection is closed: the rest of a body of up to a gigabyte is not worth
 * receiving.
 */
function finishUnread(request: FastifyRequest, reply: FastifyReply, body: StreamedBody | undefined, err: unknown): void {
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
    const timer = setTimeout(() => raw.socket?.destroy(), LINGER_MS);
    raw.once('end', () => clearTimeout(timer));
  });
}
