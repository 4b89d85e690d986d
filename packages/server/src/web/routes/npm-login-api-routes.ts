import type { FastifyInstance } from 'fastify';
import { ProtocolError } from '@pkg/protocol';
import { isSecret } from '../npm-web-login.js';
import type { WebServices } from '../web-services.js';

const startBody = {
  type: 'object',
  properties: { create: { type: 'boolean' } },
} as const;

/**
 * npm's web login API (what `npm login` calls when `auth-type` is `web`, its default):
 * `POST /-/v1/login` starts a login and answers `{loginUrl, doneUrl}`; npm prints loginUrl for
 * the browser and polls doneUrl: 202 with `Retry-After` while pending, 200 `{token}` once.
 */
export async function npmLoginApiRoutes(app: FastifyInstance, { web }: { web: WebServices }): Promise<void> {
  app.post<{ Body: { create?: boolean } | undefined }>('/-/v1/login', { schema: { body: startBody } }, async (request, reply) => {
    const urls = await web.npmLogin.start(request.ctx.tenant, request.ctx.baseUrl, {
      client: String(request.headers['user-agent'] ?? '').slice(0, 200),
      ip: request.ip,
      create: request.body?.create === true,
    });
    return reply.header('cache-control', 'no-store').send(urls);
  });

  app.get<{ Params: { secret: string } }>('/-/v1/login/done/:secret', async (request, reply) => {
    if (!isSecret(request.params.secret)) throw new ProtocolError('NOT_FOUND', 'This login session does not exist');
    const poll = await web.npmLogin.collect(request.ctx.tenant, request.params.secret);
    reply.header('cache-control', 'no-store');
    if (poll.state === 'pending') return reply.code(202).header('retry-after', String(poll.retryAfter)).send({});
    return reply.send({ token: poll.token });
  });
}
