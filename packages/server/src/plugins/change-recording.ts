import { RECORDED_ROUTES, type RecordedRoute } from '../http/recorded-routes.js';
import type { RouteRequest } from '../http/route-request.js';
import type { Payload, Routes } from '../http/routes.js';
import type { AuditTrail } from '../services/audit-trail.js';
import { actorOf, type NotedChange } from '../services/change-records.js';
import type { TokenScope } from '../storage/ports.js';

export type { NotedChange } from '../services/change-records.js';

/** Notes a token made by the request (never the token: its public id). */
export function noteTokenCreated(
  request: RouteRequest,
  token: { id: string; readonly: boolean; expiresAt: string | null; scope?: TokenScope | undefined },
  user?: string,
): void {
  const scope = token.scope;
  noteChange(request, {
    action: 'token.create',
    target: `token ${token.id}`,
    ...(user !== undefined ? { user } : {}),
    details: {
      readonly: token.readonly,
      expiresAt: token.expiresAt,
      ...(scope?.packages ? { packages: scope.packages } : {}),
      ...(scope?.publishOnly ? { publishOnly: true } : {}),
      ...(scope?.automation ? { automation: true } : {}),
      ...(scope?.cidrWhitelist?.length ? { cidrWhitelist: scope.cidrWhitelist } : {}),
    },
  });
}

/** Notes a change the request made: recorded once, with who, from where and when, as the answer goes out. */
export function noteChange(request: RouteRequest, change: NotedChange): void {
  (request.notedChanges ??= []).push(change);
}

const MAX_FIELD = 214;

/**
 * Records every request of a changing route (http/recorded-routes.ts) in the audit log: what a
 * successful one noted, and a refused or failed one as its route's action with the reason.
 * Only those routes get the hooks, so reads pay nothing. The entry is written before the answer
 * leaves: a client that sees its change done finds it in the log.
 */
export function installChangeRecording(routes: Routes, trail: AuditTrail, onFailure: (err: unknown) => void): void {
  routes.onRoute((route) => {
    const recorded = RECORDED_ROUTES[`${route.method} ${route.url}`];
    if (!recorded) return;
    // Methods of an object keep their names, which the request-pipeline test reads.
    const hooks = {
      noteRefusal(request: RouteRequest, err: Error) {
        request.refusal = err.message;
      },
      async recordChange(request: RouteRequest, reply: { statusCode: number }, payload: Payload) {
        await record(trail, recorded, request, reply.statusCode, payload).catch(onFailure);
        return payload;
      },
    };
    route.onError.push(hooks.noteRefusal);
    route.onSend.push(hooks.recordChange);
  });
}

async function record(
  trail: AuditTrail,
  route: RecordedRoute,
  request: RouteRequest,
  status: number,
  payload: unknown,
): Promise<void> {
  const ctx = request.ctx as RouteRequest['ctx'] | undefined;
  if (!ctx) return;
  // A web form's refusal has no caller yet: the signed-in user of the session is who tried.
  const actor = actorOf(ctx.caller, request.ip);
  const who = { ...actor, user: actor.user ?? request.sessionUser ?? null };
  if (status < 400) {
    for (const change of request.notedChanges ?? []) {
      await trail.record(ctx.tenant, { ...who, outcome: 'success', package: null, ...change, user: change.user ?? who.user });
    }
    return;
  }
  const params = (request.params ?? {}) as Record<string, unknown>;
  const name = route.packageParam ? params[route.packageParam] : undefined;
  const pkg = typeof name === 'string' ? name.slice(0, MAX_FIELD) : null;
  await trail.record(ctx.tenant, {
    ...who,
    user: who.user ?? loginName(request),
    action: route.action,
    outcome: status >= 500 ? 'failed' : 'refused',
    package: pkg,
    target: pkg ?? `${request.method} ${request.routeOptions.url ?? ''}`,
    reason: (request.refusal ?? reasonIn(payload) ?? `HTTP ${status}`).slice(0, 500),
    details: { status },
  });
}

/** The user a refused login named (`PUT /-/user/org.couchdb.user:<name>`): who tried. */
function loginName(request: RouteRequest): string | null {
  const id = (request.params as { id?: unknown } | undefined)?.id;
  if (typeof id !== 'string') return null;
  const colon = id.indexOf(':');
  return colon >= 0 ? id.slice(colon + 1, colon + 1 + MAX_FIELD) || null : null;
}

/** The `details`/`error` of a JSON error body sent without throwing. */
function reasonIn(payload: unknown): string | undefined {
  if (typeof payload !== 'string') return undefined;
  try {
    const body = JSON.parse(payload) as { details?: unknown; error?: unknown };
    const reason = body.details ?? body.error;
    return typeof reason === 'string' ? reason : undefined;
  } catch {
    return undefined;
  }
}
