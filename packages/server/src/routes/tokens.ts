import type { Routes } from '../http/routes.js';
import { ProtocolError } from '@pkg/protocol';
import type { TokenSummary } from '../services/auth-service.js';
import type { Services } from '../services/services.js';
import { requireCaller } from './guards.js';
import { checkPathParameter } from './login-body.js';
import { parseTokenBody } from './token-body.js';
import { requireWriteCode } from './second-factor-guard.js';
import { noteChange, noteTokenCreated } from '../plugins/change-recording.js';

const PER_PAGE = 50;
const MAX_PER_PAGE = 100;
const MAX_PAGE = 10_000;

/**
 * npm's token API, as `npm token list|create|revoke` (10 and 11) and `pkg token` use it:
 * `GET /-/npm/v1/tokens` (paged: `{objects, total, urls: {next}}`), `POST /-/npm/v1/tokens`
 * (the password again; the new token is in that answer only), `DELETE
 * /-/npm/v1/tokens/token/<key>`. Fields npm does not know (expires, packages, publish_only,
 * automation, last_used, last_address) ride along; npm ignores them.
 */
export function tokenRoutes(app: Routes, { services }: { services: Services }): void {
  app.get<{ Querystring: Record<string, unknown> }>('/-/npm/v1/tokens', async (request) => {
    const page = pageNumber(request.query.page);
    const perPage = perPageOf(request.query.perPage);
    const { tokens, total } = await services.tokens.list(request.ctx.tenant, requireCaller(request), {
      from: page * perPage,
      size: perPage,
    });
    const more = (page + 1) * perPage < total;
    return {
      objects: tokens.map(npmToken),
      total,
      urls: { next: more ? `${request.ctx.baseUrl}/-/npm/v1/tokens?page=${page + 1}&perPage=${perPage}` : null },
    };
  });

  app.post<{ Body: unknown }>('/-/npm/v1/tokens', async (request, reply) => {
    const input = parseTokenBody(request.body, request.ip);
    const caller = requireCaller(request);
    await requireWriteCode(services, request, caller, 'Creating a token');
    const { token, summary } = await services.tokens.create(request.ctx.tenant, caller, input);
    noteTokenCreated(request, summary);
    return reply.code(201).send({ ...npmToken(summary), token });
  });

  app.delete<{ Params: { key: string } }>('/-/npm/v1/tokens/token/:key', async (request, reply) => {
    const key = checkPathParameter('token key', request.params.key, 512);
    const caller = requireCaller(request);
    await requireWriteCode(services, request, caller, 'Revoking a token');
    if (!(await services.tokens.revoke(request.ctx.tenant, caller, key))) {
      throw new ProtocolError('NOT_FOUND', 'You have no token with that key: `npm token list` shows their keys');
    }
    noteChange(request, { action: 'token.revoke', target: `token ${key.slice(0, 16)}` });
    return reply.code(204).send();
  });
}

/** A token as npm's registry lists it, plus our fields (never the token itself). */
function npmToken(t: TokenSummary): Record<string, unknown> {
  return {
    token: t.prefix ?? '',
    key: t.id,
    name: t.scope?.name ?? '',
    cidr_whitelist: t.scope?.cidrWhitelist ?? null,
    readonly: t.readonly,
    created: t.createdAt,
    updated: t.createdAt,
    expires: t.expiresAt,
    packages: t.scope?.packages ?? null,
    publish_only: t.scope?.publishOnly ?? false,
    automation: t.scope?.automation ?? false,
    last_used: t.lastUsedAt ?? null,
    last_address: t.lastAddress ?? null,
  };
}

function pageNumber(value: unknown): number {
  if (value === undefined) return 0;
  const page = Number(value);
  if (typeof value !== 'string' || !/^\d+$/.test(value) || page > MAX_PAGE) {
    throw new ProtocolError('BAD_REQUEST', `'page' must be a whole number from 0 to ${MAX_PAGE}`);
  }
  return page;
}

function perPageOf(value: unknown): number {
  if (value === undefined) return PER_PAGE;
  const size = Number(value);
  if (typeof value !== 'string' || !/^\d+$/.test(value) || size < 1 || size > MAX_PER_PAGE) {
    throw new ProtocolError('BAD_REQUEST', `'perPage' must be a whole number from 1 to ${MAX_PER_PAGE}`);
  }
  return size;
}
