import type { Routes } from '../http/routes.js';
import { ProtocolError } from '@pkg/protocol';
import type { Services } from '../services/services.js';
import { isObject } from '../services/json-shapes.js';
import { noteChange } from '../plugins/change-recording.js';
import { checkPathParameter } from './login-body.js';
import { requireAdministrator } from './admin-guard.js';

const WHAT = 'manage webhooks';

/**
 * The registry's webhooks, for its administrators: list, add (`{url, events, secret?}`; the
 * answer holds the secret, shown this once), remove, rotate the secret, read deliveries and
 * redeliver one. The same as `pkg-registry webhook …`.
 */
export function webhookRoutes(app: Routes, { services }: { services: Services }): void {
  app.get('/-/pkg/v1/webhooks', async (request) => {
    await requireAdministrator(services, request, WHAT);
    return { webhooks: await services.webhooks.list(request.ctx.tenant) };
  });

  app.post<{ Body: unknown }>('/-/pkg/v1/webhooks', async (request, reply) => {
    const caller = await requireAdministrator(services, request, WHAT);
    const body = request.body;
    if (
      !isObject(body) ||
      typeof body.url !== 'string' ||
      !Array.isArray(body.events) ||
      !body.events.every((e) => typeof e === 'string')
    ) {
      throw new ProtocolError('VALIDATION_ERROR', 'The body must be {url: string, events: string[], secret?: string}');
    }
    if (body.secret !== undefined && typeof body.secret !== 'string')
      throw new ProtocolError('VALIDATION_ERROR', "'secret' must be a string");
    const added = await services.webhooks.add(request.ctx.tenant, {
      url: body.url,
      events: body.events,
      secret: body.secret,
      createdBy: caller.user,
    });
    noteChange(request, {
      action: 'webhook.add',
      target: `webhook ${added.hook.id}`,
      details: { url: added.hook.url, events: added.hook.events },
    });
    return reply.code(201).send({ ...added.hook, secret: added.secret });
  });

  app.patch<{ Params: { id: string }; Body: unknown }>('/-/pkg/v1/webhooks/:id', async (request) => {
    await requireAdministrator(services, request, WHAT);
    const id = checkPathParameter('webhook id', request.params.id, 64);
    const change = parseWebhookChange(request.body);
    const hook = await services.webhooks.update(request.ctx.tenant, id, change);
    noteChange(request, { action: 'webhook.change', target: `webhook ${id}`, details: { url: hook.url, events: hook.events } });
    return hook;
  });

  app.delete<{ Params: { id: string } }>('/-/pkg/v1/webhooks/:id', async (request) => {
    await requireAdministrator(services, request, WHAT);
    const id = checkPathParameter('webhook id', request.params.id, 64);
    await services.webhooks.remove(request.ctx.tenant, id);
    noteChange(request, { action: 'webhook.remove', target: `webhook ${id}` });
    return { ok: true };
  });

  app.post<{ Params: { id: string }; Body: unknown }>('/-/pkg/v1/webhooks/:id/rotate-secret', async (request) => {
    await requireAdministrator(services, request, WHAT);
    const id = checkPathParameter('webhook id', request.params.id, 64);
    const body = isObject(request.body) ? request.body : {};
    if (body.secret !== undefined && typeof body.secret !== 'string')
      throw new ProtocolError('VALIDATION_ERROR', "'secret' must be a string");
    if (body.overlapHours !== undefined && typeof body.overlapHours !== 'number') {
      throw new ProtocolError('VALIDATION_ERROR', "'overlapHours' must be a number");
    }
    const secret = await services.webhooks.rotateSecret(request.ctx.tenant, id, {
      secret: body.secret,
      ...(body.overlapHours !== undefined ? { overlapHours: body.overlapHours } : {}),
    });
    noteChange(request, { action: 'webhook.rotate-secret', target: `webhook ${id}` });
    return { id, secret };
  });

  app.get<{ Params: { id: string } }>('/-/pkg/v1/webhooks/:id/deliveries', async (request) => {
    await requireAdministrator(services, request, WHAT);
    const id = checkPathParameter('webhook id', request.params.id, 64);
    const deliveries = await services.webhooks.deliveries(request.ctx.tenant, id);
    return { deliveries: deliveries.map(({ payload: _payload, ...rest }) => rest) };
  });

  app.post<{ Params: { id: string } }>('/-/pkg/v1/webhooks/deliveries/:id/redeliver', async (request) => {
    await requireAdministrator(services, request, WHAT);
    const id = checkPathParameter('delivery id', request.params.id, 64);
    await services.webhooks.redeliver(request.ctx.tenant, id);
    services.webhookDispatcher.poke();
    noteChange(request, { action: 'webhook.redeliver', target: `delivery ${id}` });
    return { ok: true };
  });
}

/** The body of a change: `{url?: string, events?: string[]}`, at least one of them. */
export function parseWebhookChange(body: unknown): { url?: string; events?: string[] } {
  if (
    !isObject(body) ||
    (body.url !== undefined && typeof body.url !== 'string') ||
    (body.events !== undefined && (!Array.isArray(body.events) || !body.events.every((e) => typeof e === 'string'))) ||
    (body.url === undefined && body.events === undefined)
  ) {
    throw new ProtocolError('VALIDATION_ERROR', 'The body must be {url?: string, events?: string[]} with at least one of them');
  }
  return {
    ...(body.url !== undefined ? { url: body.url } : {}),
    ...(body.events !== undefined ? { events: body.events } : {}),
  };
}
