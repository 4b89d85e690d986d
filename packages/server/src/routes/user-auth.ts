import type { FastifyInstance } from 'fastify';
import { ProtocolError, USER_ID_PREFIXES, type WhoamiResponse } from '@pkg/protocol';
import type { Caller, RequestContext } from '../context.js';
import { jsonAnswer, sendAnswer, type Answer } from '../http/answer.js';
import type { Services } from '../services/services.js';
import { callerOf } from './guards.js';

/** The CouchDB user document npm, pnpm and yarn send; anything else in it is a 400. */
const loginBody = {
  type: 'object',
  required: ['name', 'password'],
  additionalProperties: false,
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 128 },
    password: { type: 'string', minLength: 1, maxLength: 1024 },
    email: { type: 'string', maxLength: 254 },
    _id: { type: 'string', maxLength: 200 },
    _rev: { type: 'string', maxLength: 200 },
    type: { type: 'string', maxLength: 32 },
    roles: { type: 'array', maxItems: 32, items: { type: 'string', maxLength: 128 } },
    date: { type: 'string', maxLength: 64 },
  },
} as const;

const userIdParams = {
  type: 'object',
  required: ['id'],
  properties: { id: { type: 'string', minLength: 1, maxLength: 200 } },
} as const;

const tokenParams = {
  type: 'object',
  required: ['token'],
  properties: { token: { type: 'string', minLength: 1, maxLength: 512 } },
} as const;

/** Login (`PUT /-/user/<id>`), user lookup, logout by token, whoami. */
export async function userAuthRoutes(app: FastifyInstance, { services }: { services: Services }): Promise<void> {
  app.put<{ Params: { id: string }; Body: { name: string; password: string; email?: string } }>(
    '/-/user/:id',
    { schema: { params: userIdParams, body: loginBody }, config: { openAccess: true } },
    async (request, reply) => {
      const name = userNameOfId(request.params.id);
      if (request.body.name !== name) {
        throw new ProtocolError('BAD_REQUEST', 'The name in the body does not match the user in the path');
      }
      const { response } = await services.auth.login(
        request.ctx.tenant,
        { name, password: request.body.password, email: request.body.email, clientIp: request.ip },
        request.ctx.settings,
      );
      return reply.code(201).send(response);
    },
  );

  // npm owner add/ls reads this to find a user's e-mail.
  app.get<{ Params: { id: string } }>('/-/user/:id', { schema: { params: userIdParams } }, async (request) => {
    const name = userNameOfId(request.params.id);
    const user = await services.auth.getUser(request.ctx.tenant, name);
    if (!user || user.disabled) throw new ProtocolError('NOT_FOUND', `User '${name}' not found`);
    return { _id: `org.couchdb.user:${user.name}`, name: user.name, email: user.email };
  });

  app.delete<{ Params: { token: string } }>(
    '/-/user/token/:token',
    { schema: { params: tokenParams }, config: { openAccess: true } },
    async (request) => {
      await services.auth.logout(request.ctx.tenant, request.params.token);
      return { ok: true };
    },
  );

  app.get('/-/whoami', async (request, reply) => sendAnswer(reply, await whoamiAnswer(services, request.ctx)));
}

/** `GET /-/whoami`: the caller's name and e-mail, without a promise when the token cache knew the e-mail. */
export function whoamiAnswer(services: Services, ctx: RequestContext): Answer | Promise<Answer> {
  const caller = callerOf(ctx);
  const answer = (email: string) => {
    const body: WhoamiResponse = { username: caller.user, email, registry: `${ctx.baseUrl}/` };
    return jsonAnswer(200, body);
  };
  if (caller.email === undefined) return services.auth.getUser(ctx.tenant, caller.user).then((user) => answer(user?.email ?? ''));
  // A cached caller is one object for as long as its token is trusted: its answer is made once per host.
  const made = whoamiAnswers.get(caller);
  if (made !== undefined && made.baseUrl === ctx.baseUrl) return made.answer;
  const fresh = answer(caller.email);
  whoamiAnswers.set(caller, { baseUrl: ctx.baseUrl, answer: fresh });
  return fresh;
}

/** Answers are never changed by their senders (both send the headers and bytes as they are). */
const whoamiAnswers = new WeakMap<Caller, { baseUrl: string; answer: Answer }>();

function userNameOfId(id: string): string {
  for (const prefix of USER_ID_PREFIXES) {
    if (id.startsWith(prefix)) {
      const name = id.slice(prefix.length);
      if (name.length > 0) return name;
    }
  }
  throw new ProtocolError('BAD_REQUEST', "The user id must look like 'org.registry.user:<name>'");
}
