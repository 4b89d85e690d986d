import { randomBytes } from 'node:crypto';
import type { Routes } from '../http/routes.js';
import type { RouteRequest } from '../http/route-request.js';
import { ProtocolError } from '@pkg/protocol';
import type { Caller } from '../context.js';
import { noteChange } from '../plugins/change-recording.js';
import { isAdministrator } from '../services/administrators.js';
import { INVITATION_PATH } from '../services/invitations.js';
import { isObject } from '../services/json-shapes.js';
import type { Services } from '../services/services.js';
import { summaryOfUser } from '../services/user-admin.js';
import { requireCaller, truncate } from './guards.js';
import { requireWriteCode } from './second-factor-guard.js';
import { loginTokenRequired } from '../services/caller-rules.js';

const USERS = '/-/pkg/v1/admin/users';

/**
 * The administrators' account API, per registry (the global one or a tenant): list, create,
 * change (disable, enable, administrator role) and delete users, and invite people. What
 * `pkg-registry user …` does on the server's shell, for an administrator who has none (a new
 * password too, which revokes the user's tokens as `user reset-password` does).
 */
export function adminUserRoutes(app: Routes, { services }: { services: Services }): void {
  app.get(USERS, async (request) => {
    await requireAdministrator(services, request, 'read');
    const users = await services.users.list(request.ctx.tenant);
    return { users: users.map(summaryOfUser) };
  });

  app.post<{ Body: unknown }>(USERS, async (request, reply) => {
    const caller = await requireAdministrator(services, request, 'change');
    const body = fields(request.body, ['name', 'email', 'password', 'admin']);
    const name = text(body, 'name', true)!;
    const given = text(body, 'password', false);
    const password = given ?? randomBytes(18).toString('base64url');
    await requireWriteCode(services, request, caller, 'Creating a user');
    const user = await services.users.create(request.ctx.tenant, {
      name,
      email: text(body, 'email', false),
      password,
      admin: flag(body, 'admin'),
    });
    noteChange(request, { action: 'user.create', target: `user ${user.name}`, details: { admin: user.admin === true } });
    reply.code(201);
    // A generated password is shown once, here; one the administrator chose is not sent back.
    return { ...summaryOfUser(user), ...(given === undefined ? { password } : {}) };
  });

  app.patch<{ Params: { name: string }; Body: unknown }>(`${USERS}/:name`, async (request) => {
    const caller = await requireAdministrator(services, request, 'change');
    const { tenant } = request.ctx;
    const name = request.params.name;
    const body = fields(request.body, ['disabled', 'admin', 'password']);
    const disabled = flag(body, 'disabled');
    const admin = flag(body, 'admin');
    const password = text(body, 'password', false);
    if (name === caller.user && (disabled === true || admin === false)) throw notOnYourself();
    await services.users.require(tenant, name);
    await requireWriteCode(services, request, caller, 'Changing a user');
    // The password first: the policy may refuse it, and then nothing else changes either.
    let revokedTokens = password === undefined ? 0 : await services.users.resetPassword(tenant, name, password);
    if (disabled !== undefined) revokedTokens += await services.users.setDisabled(tenant, name, disabled);
    if (admin !== undefined) await services.users.setAdmin(tenant, name, admin);
    const changed = { ...(disabled !== undefined ? { disabled } : {}), ...(admin !== undefined ? { admin } : {}) };
    noteChange(request, {
      action: 'user.change',
      target: `user ${name}`,
      details: { ...changed, password: password !== undefined, tokensRevoked: revokedTokens },
    });
    return { ...summaryOfUser(await services.users.require(tenant, name)), revokedTokens };
  });

  app.delete<{ Params: { name: string } }>(`${USERS}/:name`, async (request) => {
    const caller = await requireAdministrator(services, request, 'change');
    const name = request.params.name;
    if (name === caller.user) throw notOnYourself();
    await services.users.require(request.ctx.tenant, name);
    await requireWriteCode(services, request, caller, 'Deleting a user');
    const revokedTokens = await services.users.delete(request.ctx.tenant, name);
    noteChange(request, { action: 'user.delete', target: `user ${name}`, details: { tokensRevoked: revokedTokens } });
    return { name, deleted: true, revokedTokens };
  });

  app.post<{ Body: unknown }>('/-/pkg/v1/admin/invitations', async (request, reply) => {
    const caller = await requireAdministrator(services, request, 'change');
    const body = fields(request.body ?? {}, ['email', 'admin']);
    await requireWriteCode(services, request, caller, 'Inviting a user');
    const invitation = await services.invitations.create(request.ctx.tenant, {
      invitedBy: caller.user,
      email: text(body, 'email', false),
      admin: flag(body, 'admin'),
    });
    noteChange(request, {
      action: 'user.invite',
      target: 'invitation',
      details: { admin: body.admin === true, expiresAt: invitation.expiresAt },
    });
    reply.code(201);
    return { url: `${request.ctx.baseUrl}${INVITATION_PATH}${invitation.secret}`, expires: invitation.expiresAt };
  });
}

/**
 * The caller, when an administrator of this registry with a token that may do this: any token
 * of theirs may read; a change needs one that is neither read-only nor limited (packages,
 * publish-only), as a profile change does.
 */
async function requireAdministrator(services: Services, request: RouteRequest, what: 'read' | 'change'): Promise<Caller> {
  const caller = requireCaller(request);
  if (!(await isAdministrator({ get: (tenant, name) => services.auth.getUser(tenant, name) }, request.ctx.tenant, caller.user))) {
    throw new ProtocolError('FORBIDDEN', `'${caller.user}' is not an administrator of this registry`);
  }
  if (what === 'change' && (caller.readonly || caller.scope?.packages || caller.scope?.publishOnly)) {
    throw loginTokenRequired('managing users');
  }
  return caller;
}

function notOnYourself(): ProtocolError {
  return new ProtocolError(
    'FORBIDDEN',
    'Administrators cannot delete, disable or demote themselves: ask another administrator, or use pkg-registry user',
  );
}

/** The body as an object holding only `allowed` fields, or 400 naming the first other one. */
function fields(body: unknown, allowed: string[]): Record<string, unknown> {
  if (!isObject(body)) throw new ProtocolError('BAD_REQUEST', 'The body must be a JSON object');
  const unknown = Object.keys(body).find((key) => !allowed.includes(key));
  if (unknown !== undefined) {
    throw new ProtocolError('BAD_REQUEST', `Unknown field '${truncate(unknown, 40)}': allowed are ${allowed.join(', ')}`);
  }
  return body;
}

function text(body: Record<string, unknown>, key: string, required: boolean): string | undefined {
  const value = body[key];
  if (value === undefined && !required) return undefined;
  if (typeof value !== 'string' || value.length === 0 || value.length > 1024) {
    throw new ProtocolError('BAD_REQUEST', `'${key}' must be a non-empty string`);
  }
  return value;
}

function flag(body: Record<string, unknown>, key: string): boolean | undefined {
  const value = body[key];
  if (value !== undefined && typeof value !== 'boolean') throw new ProtocolError('BAD_REQUEST', `'${key}' must be true or false`);
  return value;
}
