import { loginSessionNotFound } from '../../services/npm-web-login.js';
import type { Routes } from '../../http/routes.js';
import { ProtocolError } from '@pkg/protocol';
import { isObject } from '../../services/json-shapes.js';
import { isSecret } from '../../services/npm-web-login.js';
import type { WebServices } from '../web-services.js';

/**
 * npm's web login API (what `npm login` calls when `auth-type` is `web`, its default):
 * `POST /-/v1/login` starts a login and answers `{loginUrl, doneUrl}`; npm prints loginUrl for
 * the browser and polls doneUrl: 202 with `Retry-After` while pending, 200 `{token}` once.
 */
export function npmLoginApiRoutes(app: Routes, { web }: { web: WebServices }): void {
  app.post<{ Body: unknown }>('/-/v1/login', async (request, reply) => {
    // npm sends no body; `{create: true}` asks for the sign-up page.
    if (request.body !== undefined && !isObject(request.body))
      throw new ProtocolError('BAD_REQUEST', 'The body must be a JSON object');
    const create = request.body?.create;
    if (create !== undefined && typeof create !== 'boolean')
      throw new ProtocolError('BAD_REQUEST', "'create' must be true or false");
    const urls = await web.registry.npmLogin.start(request.ctx.tenant, request.ctx.baseUrl, {
      client: String(request.headers['user-agent'] ?? '').slice(0, 200),
      ip: request.ip,
      create: create === true,
    });
    return reply.header('cache-control', 'no-store').send(urls);
  });

  // npm polls this every NPM_LOGIN_POLL_SECONDS while its user signs in on the page: a few
  // minutes of that would use up the anonymous API limit of an office behind one address, so the
  // polls count against the web pages' budget, as the sign-in page they wait for does.
  app.get<{ Params: { secret: string } }>('/-/v1/login/done/:secret', { config: { budget: 'page' } }, async (request, reply) => {
    if (!isSecret(request.params.secret)) throw loginSessionNotFound();
    const poll = await web.registry.npmLogin.collect(request.ctx.tenant, request.params.secret);
    reply.header('cache-control', 'no-store');
    if (poll.state === 'pending') return reply.code(202).header('retry-after', String(poll.retryAfter)).send({});
    return reply.send({ token: poll.token });
  });
}
