import { createGunzip, createInflate } from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import { ProtocolError } from '@pkg/protocol';

/**
 * Request bodies: JSON (npm sends `application/json`), optionally gzip/deflate-compressed
 * (`Content-Encoding`), within the route's body limit, which fastify applies to the
 * decompressed stream, so a zip bomb is cut off at the limit.
 */
export function installBodyParsing(app: FastifyInstance): void {
  // Every body of the protocol is JSON; anything else is 415 rather than a string that fails later.
  app.removeContentTypeParser('text/plain');
  app.addHook('preParsing', function bodyEncoding(request, _reply, payload, done) {
    const header = request.headers['content-encoding'];
    if (header === undefined) return done(null, payload);
    const encoding = String(header).toLowerCase().trim();
    if (encoding === 'identity' || encoding === '') return done(null, payload);
    let decoder;
    if (encoding === 'gzip' || encoding === 'x-gzip') decoder = createGunzip();
    else if (encoding === 'deflate') decoder = createInflate();
    else return done(new ProtocolError('UNSUPPORTED_MEDIA_TYPE', `Unsupported Content-Encoding '${encoding}'`));
    // The compressed length says nothing about the body fastify will measure.
    delete request.headers['content-length'];
    payload.on('error', (err) => decoder.destroy(err));
    decoder.on('error', () => undefined);
    done(null, payload.pipe(decoder));
  });
}
