import type { Routes } from '../http/routes.js';
import { ProtocolError, SIGNUP_HEADER, USER_ID_PREFIXES, type WhoamiResponse, userNotFound } from '@pkg/protocol';
import type { Caller, RequestContext } from '../context.js';
import { jsonAnswer, sendAnswerOf, type Answer } from '../http/answer.js';
import type { Services } from '../services/services.js';
import { callerOf } from './guards.js';
import { checkPathParameter, parseLoginBody } from './login-body.js';
import { otpOf } from './second-factor-guard.js';
import { noteChange } from '../plugins/change-recording.js';
import { hashToken } from '../services/tokens.js';

const MAX_USER_ID = 200;
const MAX_TOKEN = 512;

/** Login (`PUT /-/user/<id>`), user lookup, logout by token, whoami. */
export function userAuthRoutes(app: Routes, { services }: { services: Services }): void {
  app.put<{ Params: { id: string }; Body: unknown }>('/-/user/:id', { config: { openAccess: true } }, async (request, reply) => {
    const name = userNameOfId(checkPathParameter('user id', request.params.id, MAX_USER_ID));
    const body = parseLoginBody(request.body);
    if (body.name !== name) {
      throw new ProtocolError('BAD_REQUEST', 'The name in the body does not match the user in the path');
    }
    // A client may close sign-up for its own login (pkg login --no-signup), never open it.
    const settings =
      request.headers[SIGNUP_HEADER] === 'false' ? { ...request.ctx.settings, signup: false } : request.ctx.settings;
    const { created, response } = await services.auth.login(
      request.ctx.tenant,
      { name, password: body.password, email: body.email, clientIp: request.ip, otp: otpOf(request) },
      settings,
    );
    if (created) noteChange(request, { action: 'user.create', target: `user ${name}`, user: name, details: { via: 'sign-up' } });
    noteChange(request, {
      action: 'token.create',
      target: `token ${hashToken(response.token).slice(0, 16)}`,
      user: name,
      details: { login: true },
    });
    return reply.code(201).send({ ...response, created });
  });

  // npm owner add reads this (with its token) to check that a user exists. Anonymous callers get
  // the same 401 for every name: an open directory of accounts and e-mail addresses would serve
  // only spammers and password guessers.
  app.get<{ Params: { id: string } }>('/-/user/:id', async (request) => {
    const name = userNameOfId(checkPathParameter('user id', request.params.id, MAX_USER_ID));
    callerOf(request.ctx);
    const user = await services.auth.getUser(request.ctx.tenant, name);
    if (!user || user.disabled) throw userNotFound(name);
    return { _id: `org.couchdb.user:${user.name}`, name: user.name, email: user.email };
  });

  app.delete<{ Params: { token: string } }>('/-/user/token/:token', { config: { openAccess: true } }, async (request) => {
    const token = checkPathParameter('token', request.params.token, MAX_TOKEN);
    if (await services.auth.logout(request.ctx.tenant, token)) {
      noteChange(request, {
        action: 'token.revoke',
        target: `token ${hashToken(token).slice(0, 16)}`,
        details: { logout: true },
      });
    }
    return { ok: true };
  });

  app.get('/-/whoami', (request, reply) => sendAnswerOf(reply, whoamiAnswer(services, request.ctx)));
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
