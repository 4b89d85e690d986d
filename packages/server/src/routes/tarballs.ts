import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Services } from '../services/services.js';
import type { TarballFile } from '../services/package-reads.js';
import { packageNameParam } from './guards.js';
import { etagMatches } from './send-representation.js';

/** A version's tarball never changes (versions are immutable), so caches may keep it for good. */
const TARBALL_CACHE_CONTROL = 'public, max-age=31536000, immutable';

type FileRequest = FastifyRequest<{ Params: { name: string; file: string } }>;

/** `GET` and `HEAD /<name>/-/<name>-<version>.tgz`: tarball bytes from the blob store. */
export async function tarballRoutes(app: FastifyInstance, { services }: { services: Services }): Promise<void> {
  const lookUp = (request: FileRequest) => {
    const name = packageNameParam(request.params.name);
    const scope = { tenant: request.ctx.tenant, tarballBaseUrl: request.ctx.tarballBaseUrl };
    return services.packageReads.file(scope, name, request.params.file).then((file) => ({ name, file }));
  };

  app.get('/:name/-/:file', { exposeHeadRoute: false }, async (request: FileRequest, reply) => {
    const { name, file } = await lookUp(request);
    if (writeHeaders(request, reply, file)) return reply.code(304).send();
    const stream = await file.open();
    if (file.kind === 'tarball') services.downloads.record(request.ctx.tenant, name, file.version);
    return reply.send(stream);
  });

  app.head('/:name/-/:file', async (request: FileRequest, reply) => {
    const { file } = await lookUp(request);
    if (writeHeaders(request, reply, file)) return reply.code(304).send();
    return reply.send();
  });
}

/** Sets the response headers of a file; true when the client's copy is current (304). */
function writeHeaders(request: FileRequest, reply: FastifyReply, file: TarballFile): boolean {
  reply.header('Cache-Control', TARBALL_CACHE_CONTROL);
  reply.header('ETag', file.etag);
  const ifNoneMatch = request.headers['if-none-match'];
  if (ifNoneMatch !== undefined && etagMatches(ifNoneMatch, file.etag)) return true;
  reply.header('Content-Type', file.kind === 'tarball' ? 'application/octet-stream' : 'application/json');
  reply.header('Content-Length', String(file.size));
  return false;
}
