import type { Routes } from '../../http/routes.js';
import type { RouteRequest } from '../../http/route-request.js';
import type { RouteReply } from '../../http/route-reply.js';
import { ProtocolError } from '@pkg/protocol';
import { noteChange } from '../../plugins/change-recording.js';
import { packageNameParam, truncate } from '../../routes/guards.js';
import { checkCsrf } from '../csrf.js';
import { formOf, type Form } from '../forms.js';
import { sendPage } from '../html-responses.js';
import { advisoriesPage, type AdvisoriesView } from '../pages/advisories-page.js';
import type { PageContext } from '../pages/page-context.js';
import { advisoriesPath } from '../pages/urls.js';
import { mayRead, pageContext } from '../viewer.js';
import { upstreamMark, type WebServices } from '../web-services.js';

const DONE: Record<string, string> = {
  published: 'The advisory was published.',
  withdrawn: 'The advisory was withdrawn.',
};

/**
 * A package's advisories page (`/-/web/package/<name>/advisories`) and its publish and
 * withdraw forms: the HTTP API's operations over the same service (the same checks, refusals
 * and audit log entries, and so the same webhooks), as the signed-in user.
 */
export function advisoryPageRoutes(app: Routes, { web }: { web: WebServices }): void {
  /** The page as it is now; 404 for a package that is not here. */
  async function page(
    request: RouteRequest,
    ctx: PageContext,
    name: string,
    extra: Pick<AdvisoriesView, 'notice' | 'error'>,
  ): Promise<string> {
    const { tenant, settings } = request.ctx;
    const stored = await web.registry.packageReads.stored(tenant, name);
    if (!stored || stored.unpublished) throw new ProtocolError('NOT_FOUND', `There is no package named ${name} here`);
    const versions = Object.keys(stored.document.versions ?? {});
    const [{ own, upstream, notes }, manage] = await Promise.all([
      web.registry.advisories.ofPackage(tenant, name, versions, settings.uplinks),
      ctx.viewer ? web.registry.advisories.mayManage(tenant, { user: ctx.viewer, readonly: false }, name) : false,
    ]);
    return advisoriesPage(ctx, {
      name,
      own,
      upstream: (upstream?.advisories ?? []).map((a) => upstreamMark(a, upstream!.uplink)),
      notes,
      manage,
      ...extra,
    });
  }

  /** Runs a form as the signed-in user; a refusal shows the page again with the reason beside the form. */
  async function change(
    request: RouteRequest<{ Params: { name: string }; Body: Form }>,
    reply: RouteReply,
    formKey: string,
    run: (form: Form, user: string, name: string) => Promise<string>,
  ): Promise<RouteReply> {
    const form = formOf(request.body);
    checkCsrf(request, form.csrf);
    const name = packageNameParam(request.params.name);
    const ctx = await pageContext(request, reply, web);
    if (!ctx.viewer) return reply.redirect(`/-/web/signin?next=${encodeURIComponent(advisoriesPath(name))}`, 303);
    try {
      return reply.redirect(await run(form, ctx.viewer, name), 303);
    } catch (err) {
      if (!(err instanceof ProtocolError) || err.status >= 500 || err.status === 429) throw err;
      const { csrf: _csrf, ...fields } = form;
      const error = { form: formKey, message: err.details || err.message, fields };
      return sendPage(reply, await page(request, ctx, name, { error }), err.status, 'no-store');
    }
  }

  app.get<{ Params: { name: string }; Querystring: Record<string, unknown> }>(
    '/-/web/package/:name/advisories',
    async (request, reply) => {
      const name = packageNameParam(request.params.name);
      const ctx = await pageContext(request, reply, web);
      if (!(await mayRead(request, reply, web, ctx))) return reply;
      const notice = typeof request.query.done === 'string' ? DONE[request.query.done] : undefined;
      return sendPage(reply, await page(request, ctx, name, notice ? { notice } : {}), 200, 'no-store');
    },
  );

  app.post<{ Params: { name: string }; Body: Form }>('/-/web/package/:name/advisories', (request, reply) =>
    change(request, reply, 'publish', async (form, user, name) => {
      const { advisory, created } = await web.registry.advisories.publish(
        request.ctx.tenant,
        { user, readonly: false },
        name,
        advisoryBodyOf(form),
      );
      noteChange(request, {
        action: 'advisory.publish',
        user,
        package: name,
        target: `${name} advisory ${advisory.id}`,
        details: { id: advisory.id, severity: advisory.severity, vulnerableVersions: advisory.vulnerableVersions, created },
      });
      return `${advisoriesPath(name)}?done=published#advisory-${encodeURIComponent(advisory.id)}`;
    }),
  );

  app.post<{ Params: { name: string; id: string }; Body: Form }>(
    '/-/web/package/:name/advisories/:id/withdraw',
    (request, reply) =>
      change(request, reply, `withdraw:${request.params.id}`, async (_form, user, name) => {
        const id = request.params.id;
        if (id.length > 64) throw new ProtocolError('NOT_FOUND', `'${name}' has no advisory '${truncate(id)}'`);
        const advisory = await web.registry.advisories.withdraw(request.ctx.tenant, { user, readonly: false }, name, id);
        noteChange(request, {
          action: 'advisory.withdraw',
          user,
          package: name,
          target: `${name} advisory ${advisory.id}`,
          details: { id: advisory.id },
        });
        return `${advisoriesPath(name)}?done=withdrawn`;
      }),
  );
}

/**
 * The publish form as the body `POST /-/pkg/v1/advisories/<name>` takes, so that it meets the
 * same checks and the same refusals. Empty optional fields are left out, as a client would.
 */
function advisoryBodyOf(form: Form): Record<string, unknown> {
  const optional = (value: string | undefined) => (value === undefined || value.trim() === '' ? undefined : value.trim());
  return {
    id: optional(form.id),
    severity: form.severity ?? '',
    vulnerable_versions: (form.vulnerable_versions ?? '').trim(),
    patched_versions: optional(form.patched_versions),
    title: form.title ?? '',
    description: form.description === undefined || form.description === '' ? undefined : form.description,
    url: optional(form.url),
  };
}
