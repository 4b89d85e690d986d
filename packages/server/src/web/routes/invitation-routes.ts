import type { Routes } from '../../http/routes.js';
import { ProtocolError } from '@pkg/protocol';
import { noteChange } from '../../plugins/change-recording.js';
import { INVITATION_PATH, type InvitationTerms } from '../../services/invitations.js';
import { checkCsrf } from '../csrf.js';
import { formOf, type Form } from '../forms.js';
import { sendPage } from '../html-responses.js';
import { invitationPage, type InvitationView } from '../pages/invitation-page.js';
import { messagePage } from '../pages/message-page.js';
import { sentence, startBrowserSession } from '../sign-in.js';
import { pageContext } from '../viewer.js';
import type { WebServices } from '../web-services.js';

const GONE =
  'This invitation cannot be used: it was used already, it expired, or the link is incomplete. Ask the person who invited you for a new one.';

/** An invitation link: the form to create the account, and its sending (then signed in, on the account page). */
export function invitationRoutes(app: Routes, { web }: { web: WebServices }): void {
  const path = `${INVITATION_PATH}:secret`;
  const viewOf = (secret: string, terms: InvitationTerms & { expiresAt: string }): InvitationView => ({
    action: `${INVITATION_PATH}${secret}`,
    invitedBy: terms.invitedBy,
    expiresAt: terms.expiresAt,
    admin: terms.admin === true,
    passwordMinLength: web.passwordMinLength,
    email: terms.email ?? '',
  });

  app.get<{ Params: { secret: string } }>(path, async (request, reply) => {
    const ctx = await pageContext(request, reply, web);
    const terms = await web.registry.invitations.find(request.ctx.tenant, request.params.secret);
    if (!terms) return sendPage(reply, messagePage(ctx, 'Invitation not valid', GONE, 'error'), 404, 'no-store');
    return sendPage(reply, invitationPage(ctx, viewOf(request.params.secret, terms)), 200, 'no-store');
  });

  app.post<{ Params: { secret: string }; Body: Form }>(path, async (request, reply) => {
    const form = formOf(request.body);
    checkCsrf(request, form.csrf);
    const { tenant } = request.ctx;
    const secret = request.params.secret;
    const name = (form.name ?? '').trim();
    const email = (form.email ?? '').trim();
    try {
      const user = await web.registry.invitations.accept(tenant, secret, { name, email, password: form.password ?? '' });
      noteChange(request, { action: 'user.accept-invitation', target: `user ${user.name}`, user: user.name });
      await startBrowserSession(request, reply, web, user.name);
      return reply.redirect('/-/web/account?welcome=1', 303);
    } catch (err) {
      if (!(err instanceof ProtocolError) || err.status >= 500 || err.status === 429) throw err;
      const ctx = await pageContext(request, reply, web);
      const terms = await web.registry.invitations.find(tenant, secret);
      if (!terms) return sendPage(reply, messagePage(ctx, 'Invitation not valid', GONE, 'error'), 404, 'no-store');
      const view = {
        ...viewOf(secret, terms),
        name: name.slice(0, 128),
        email: email.slice(0, 254),
        error: sentence(err.details),
      };
      return sendPage(reply, invitationPage(ctx, view), err.status, 'no-store');
    }
  });
}
