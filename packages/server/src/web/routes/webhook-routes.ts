import type { Routes } from '../../http/routes.js';
import type { RouteRequest } from '../../http/route-request.js';
import type { RouteReply } from '../../http/route-reply.js';
import { ProtocolError } from '@pkg/protocol';
import { noteChange } from '../../plugins/change-recording.js';
import { checkPathParameter } from '../../routes/login-body.js';
import { checkCsrf } from '../csrf.js';
import { formOf, type Form } from '../forms.js';
import { sendPage } from '../html-responses.js';
import type { PageContext } from '../pages/page-context.js';
import { WEBHOOKS_PAGE, webhooksPage, type WebhooksView } from '../pages/webhooks-page.js';
import { pageContext } from '../viewer.js';
import type { WebServices } from '../web-services.js';
import { administratorRefusal } from './admin-page-guard.js';

const PAGE = { path: WEBHOOKS_PAGE, title: 'Webhooks', what: 'manage its webhooks' };
/** Deliveries shown per webhook. */
const DELIVERIES_SHOWN = 10;

/** What a finished form says when the page is shown again (`?done=`). */
const DONE: Record<string, string> = {
  changed: 'The webhook was changed.',
  deleted: 'The webhook was deleted.',
  redelivered: 'The delivery will be sent again shortly.',
};

/**
 * The webhooks page and its forms, for the registry's administrators: the HTTP API's
 * operations (routes/webhooks.ts) over the same service, so the same checks and the same
 * refusals; each change in the audit log as the API's are.
 */
export function webhookPageRoutes(app: Routes, { web }: { web: WebServices }): void {
  /** The page as it is now, with what the last form did. */
  async function page(request: RouteRequest, ctx: PageContext, extra: Omit<WebhooksView, 'hooks'>): Promise<string> {
    const { tenant } = request.ctx;
    const hooks = await web.registry.webhooks.list(tenant);
    const view = await Promise.all(
      hooks.map(async (hook) => ({
        hook,
        deliveries: await web.registry.webhooks.deliveries(tenant, hook.id, DELIVERIES_SHOWN),
      })),
    );
    return webhooksPage(ctx, { hooks: view, ...extra });
  }

  /**
   * Runs a form's change as its administrator; a refusal (bad input, an unknown webhook) shows
   * the page again with the reason beside the form and what it held, never a secret.
   */
  async function change(
    request: RouteRequest<{ Body: Form }>,
    reply: RouteReply,
    formKey: (form: Form) => string,
    run: (form: Form, user: string, ctx: PageContext) => Promise<RouteReply | { page: string; status: number }>,
  ): Promise<RouteReply> {
    const form = formOf(request.body);
    checkCsrf(request, form.csrf);
    const ctx = await pageContext(request, reply, web);
    const refused = await administratorRefusal(request, reply, web, ctx, PAGE);
    if (refused) return reply;
    try {
      const done = await run(form, ctx.viewer!, ctx);
      return 'page' in done ? sendPage(reply, done.page, done.status, 'no-store') : done;
    } catch (err) {
      if (!(err instanceof ProtocolError) || err.status >= 500 || err.status === 429) throw err;
      const { csrf: _csrf, secret: _secret, ...fields } = form;
      const message = err.details || err.message;
      return sendPage(
        reply,
        await page(request, ctx, { error: { form: formKey(form), message, fields } }),
        err.status,
        'no-store',
      );
    }
  }

  app.get<{ Querystring: Record<string, unknown> }>(WEBHOOKS_PAGE, async (request, reply) => {
    const ctx = await pageContext(request, reply, web);
    const refused = await administratorRefusal(request, reply, web, ctx, PAGE);
    if (refused) return reply;
    const done = typeof request.query.done === 'string' ? DONE[request.query.done] : undefined;
    return sendPage(reply, await page(request, ctx, done ? { notice: done } : {}), 200, 'no-store');
  });

  app.post<{ Body: Form }>(WEBHOOKS_PAGE, (request, reply) =>
    change(
      request,
      reply,
      () => 'add',
      async (form, user, ctx) => {
        const added = await web.registry.webhooks.add(request.ctx.tenant, {
          url: form.url ?? '',
          events: eventsOf(form.events),
          secret: form.secret ? form.secret : undefined,
          createdBy: user,
        });
        noteChange(request, {
          action: 'webhook.add',
          user,
          target: `webhook ${added.hook.id}`,
          details: { url: added.hook.url, events: added.hook.events },
        });
        const shown = await page(request, ctx, {
          notice: 'Webhook added.',
          secret: { hook: added.hook.id, secret: added.secret },
        });
        return { page: shown, status: 201 };
      },
    ),
  );

  app.post<{ Params: { id: string }; Body: Form }>(`${WEBHOOKS_PAGE}/:id`, (request, reply) =>
    change(
      request,
      reply,
      () => `edit:${request.params.id}`,
      async (form, user) => {
        const id = checkPathParameter('webhook id', request.params.id, 64);
        const hook = await web.registry.webhooks.update(request.ctx.tenant, id, {
          url: form.url ?? '',
          events: eventsOf(form.events),
        });
        noteChange(request, {
          action: 'webhook.change',
          user,
          target: `webhook ${id}`,
          details: { url: hook.url, events: hook.events },
        });
        return reply.redirect(`${WEBHOOKS_PAGE}?done=changed#hook-${id}`, 303);
      },
    ),
  );

  app.post<{ Params: { id: string }; Body: Form }>(`${WEBHOOKS_PAGE}/:id/rotate-secret`, (request, reply) =>
    change(
      request,
      reply,
      () => `rotate:${request.params.id}`,
      async (form, user, ctx) => {
        const id = checkPathParameter('webhook id', request.params.id, 64);
        const overlap = (form.overlapHours ?? '').trim();
        if (overlap !== '' && !/^\d+(\.\d+)?$/.test(overlap)) {
          throw new ProtocolError('VALIDATION_ERROR', "'overlapHours' must be a number");
        }
        const secret = await web.registry.webhooks.rotateSecret(request.ctx.tenant, id, {
          secret: form.secret ? form.secret : undefined,
          ...(overlap !== '' ? { overlapHours: Number(overlap) } : {}),
        });
        noteChange(request, { action: 'webhook.rotate-secret', user, target: `webhook ${id}` });
        return {
          page: await page(request, ctx, { notice: 'The secret was rotated.', secret: { hook: id, secret } }),
          status: 200,
        };
      },
    ),
  );

  app.post<{ Params: { id: string }; Body: Form }>(`${WEBHOOKS_PAGE}/:id/delete`, (request, reply) =>
    change(
      request,
      reply,
      () => `delete:${request.params.id}`,
      async (_form, user) => {
        const id = checkPathParameter('webhook id', request.params.id, 64);
        await web.registry.webhooks.remove(request.ctx.tenant, id);
        noteChange(request, { action: 'webhook.remove', user, target: `webhook ${id}` });
        return reply.redirect(`${WEBHOOKS_PAGE}?done=deleted`, 303);
      },
    ),
  );

  app.post<{ Params: { id: string }; Body: Form }>(`${WEBHOOKS_PAGE}/deliveries/:id/redeliver`, (request, reply) =>
    change(
      request,
      reply,
      () => `redeliver:${request.params.id}`,
      async (_form, user) => {
        const id = checkPathParameter('delivery id', request.params.id, 64);
        await web.registry.webhooks.redeliver(request.ctx.tenant, id);
        web.registry.webhookDispatcher.poke();
        noteChange(request, { action: 'webhook.redeliver', user, target: `delivery ${id}` });
        return reply.redirect(`${WEBHOOKS_PAGE}?done=redelivered`, 303);
      },
    ),
  );
}

/** The events field as the API's list: comma- or space-separated (an empty one is refused by the service). */
function eventsOf(value: string | undefined): string[] {
  return (value ?? '').split(/[\s,]+/).filter((event) => event.length > 0);
}
