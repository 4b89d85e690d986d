import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import type { Routes } from '../http/routes.js';
import type { RouteRequest } from '../http/route-request.js';
import { ProtocolError, type PackageName } from '@pkg/protocol';
import type { RequestContext } from '../context.js';
import { errorAnswer, sendAnswerOf, type Answer } from '../http/answer.js';
import { parseByteRange } from '../http/byte-range.js';
import type { ByteRange } from '../storage/ports.js';
import type { TarballFile } from '../services/package-reads.js';
import type { Services } from '../services/services.js';
import { packageNameParam } from './guards.js';
import { etagMatches } from './send-representation.js';

/** A version's tarball never changes (versions are immutable), so caches may keep it for good. */
const TARBALL_CACHE_CONTROL = 'public, max-age=31536000, immutable';

type FileRequest = RouteRequest<{ Params: { name: string; file: string } }>;

/** `GET` and `HEAD /<name>/-/<name>-<version>.tgz`: tarball bytes from the blob store. */
export function tarballRoutes(app: Routes, { services }: { services: Services }): void {
  const answer = (request: FileRequest, method: 'GET' | 'HEAD') =>
    fileAnswer(services, request.ctx, packageNameParam(request.params.name), request.params.file, request.headers, method);

  app.get('/:name/-/:file', { exposeHeadRoute: false }, (request: FileRequest, reply) =>
    sendAnswerOf(reply, answer(request, 'GET')),
  );
  app.head('/:name/-/:file', (request: FileRequest, reply) => sendAnswerOf(reply, answer(request, 'HEAD')));
}

/**
 * The answer to a file request: the bytes with a strong ETag (the version's integrity) and
 * immutable caching, or 304 when the client's copy is current. A GET of a tarball counts as a
 * download (a `Range` request only when it starts at the first byte). No promise when the
 * caches hold the tarball. Streamed (large) files also answer `Range` with 206 or 416.
 */
export function fileAnswer(
  services: Services,
  ctx: RequestContext,
  name: PackageName,
  fileName: string,
  requestHeaders: IncomingHttpHeaders,
  method: 'GET' | 'HEAD',
): Answer | Promise<Answer> {
  const scope = { tenant: ctx.tenant, tarballBaseUrl: ctx.tarballBaseUrl };
  const cached = method === 'GET' ? services.packageReads.cachedFile(scope, name, fileName) : undefined;
  if (cached !== undefined) return answerWith(services, ctx, name, cached, requestHeaders, () => cached.bytes);
  const stored = () =>
    services.packageReads
      .file(scope, name, fileName)
      .then((file) =>
        answerWith(services, ctx, name, file, requestHeaders, method === 'GET' ? (range) => file.open(range) : undefined),
      );
  const uplink = ctx.settings.uplinks?.match(name);
  if (uplink === undefined) return stored();
  // A covered package's tarball is served like any other once it is stored; the first request
  // downloads it from the uplink and is answered as the bytes arrive (a HEAD asks the upstream's
  // HEAD instead).
  return stored().catch((err: unknown) => {
    if (!(err instanceof ProtocolError) || err.code !== 'NOT_FOUND') throw err;
    return services.uplinks.ensureFile(scope, uplink, name, fileName, method).then((upstream) => {
      if (upstream === undefined) return stored();
      // A GET of a tarball still arriving is streamed from the download (a HEAD has no `open`).
      const open = upstream.open;
      return answerWith(
        services,
        ctx,
        name,
        upstream,
        requestHeaders,
        method === 'GET' && open !== undefined ? () => open() : undefined,
      );
    });
  });
}

function answerWith<Body extends Buffer | Promise<Buffer | Readable>>(
  services: Services,
  ctx: RequestContext,
  name: PackageName,
  file: Omit<TarballFile, 'open'>,
  requestHeaders: IncomingHttpHeaders,
  open: ((range?: ByteRange) => Body) | undefined,
): Answer | Promise<Answer> {
  const headers: Record<string, string> = { 'cache-control': TARBALL_CACHE_CONTROL, etag: file.etag };
  const ifNoneMatch = requestHeaders['if-none-match'];
  if (ifNoneMatch !== undefined && etagMatches(ifNoneMatch, file.etag)) return { status: 304, headers, body: undefined };
  headers['content-type'] = file.kind === 'tarball' ? 'application/octet-stream' : 'application/json';
  headers['content-length'] = String(file.size);
  if (file.streamed) headers['accept-ranges'] = 'bytes';
  if (open === undefined) return { status: 200, headers, body: undefined };
  const ifRange = requestHeaders['if-range'];
  const range =
    file.streamed && (ifRange === undefined || ifRange === file.etag)
      ? parseByteRange(requestHeaders.range, file.size)
      : undefined;
  if (range === 'unsatisfiable') {
    const refused = errorAnswer(
      new ProtocolError('RANGE_NOT_SATISFIABLE', `The range starts past the end of the file (${file.size} bytes)`, {
        'content-range': `bytes */${file.size}`,
      }),
    );
    delete headers['content-length'];
    return { ...refused, headers: { ...headers, ...refused.headers } };
  }
  const answer = (body: Buffer | Readable): Answer => {
    if (file.kind === 'tarball' && (range === undefined || range.start === 0)) {
      services.downloads.record(ctx.tenant, name, file.version);
    }
    if (range === undefined) return { status: 200, headers, body };
    headers['content-range'] = `bytes ${range.start}-${range.end}/${file.size}`;
    headers['content-length'] = String(range.end - range.start + 1);
    return { status: 206, headers, body };
  };
  if (range !== undefined) return Promise.resolve(open(range)).then(answer);
  const body: Buffer | Promise<Buffer | Readable> = open();
  return Buffer.isBuffer(body) ? answer(body) : body.then(answer);
}
