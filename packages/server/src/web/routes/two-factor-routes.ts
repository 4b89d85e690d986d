import type { Routes } from '../../http/routes.js';
import type { RouteRequest } from '../../http/route-request.js';
import { ProtocolError } from '@pkg/protocol';
import { noteChange } from '../../plugins/change-recording.js';
import { SecondFactorService } from '../../services/second-factor.js';
import type { UserRecord } from '../../storage/ports.js';
import { checkCsrf } from '../csrf.js';
import { formOf, type Form } from '../forms.js';
import { sendPage } from '../html-responses.js';
import type { AccountView } from '../pages/account-page.js';
import type { PageContext } from '../pages/page-context.js';
import type { TwoFactorView } from '../pages/two-factor-section.js';
import { sentence } from '../sign-in.js';
import { pageContext } from '../viewer.js';
import type { WebServices } from '../web-services.js';

const ACCOUNT = '/-/web/account';
const MODES = ['auth-only', 'auth-and-writes'] as const;

type AccountRenderer = (request: RouteRequest, ctx: PageContext, extra: Partial<AccountView>) => Promise<string>;

/** What the account page shows of a user's second factor (the pending QR code drawn again on a reload). */
export function twoFactorViewOf(web: WebServices, user: UserRecord | undefined, issuer: string): TwoFactorView {
  const factor = user?.secondFactor;
  if (!user || !factor) return { state: 'off' };
  if (factor.pending) return { state: 'pending', url: web.registry.secondFactors.pendingUrl(user, issuer)! };
  return { state: 'on', mode: factor.mode, recoveryCodesLeft: factor.recoveryCodes.length };
}

/**
 * Two-factor sign-in on the web account page, the same enrolment as npm's profile API drives:
 * begin with the password (a new secret, pending), confirm with a first code (recovery codes,
 * shown once), switch off with the password and a code. Each form is CSRF-checked and
 * answers with the account page, its refusal said in the section.
 */
export function twoFactorRoutes(app: Routes, { web, account }: { web: WebServices; account: AccountRenderer }): void {
  const { secondFactors, auth } = web.registry;

  /** Runs a form's change for the signed-in viewer; a refusal shows the page with its reason. */
  function form(
    path: string,
    change: (request: RouteRequest, user: UserRecord, form: Form) => Promise<TwoFactorView | undefined>,
  ) {
    app.post<{ Body: Form }>(`${ACCOUNT}/two-factor/${path}`, async (request, reply) => {
      const fields = formOf(request.body);
      checkCsrf(request, fields.csrf);
      const ctx = await pageContext(request, reply, web);
      if (!ctx.viewer) return reply.redirect(`/-/web/signin?next=${encodeURIComponent(ACCOUNT)}`, 303);
      const user = await auth.getUser(request.ctx.tenant, ctx.viewer);
      if (!user) return reply.redirect(`/-/web/signin?next=${encodeURIComponent(ACCOUNT)}`, 303);
      try {
        const twoFactor = await change(request, user, fields);
        noteChange(request, { action: 'user.two-factor', target: `user ${user.name}`, user: user.name, details: { step: path } });
        // A change shows the page at its section; a refresh of it then shows the state as stored.
        const page = await account(request, ctx, twoFactor ? { twoFactor } : {});
        return sendPage(reply, page, 200, 'no-store');
      } catch (err) {
        if (!(err instanceof ProtocolError) || err.status >= 500 || err.status === 429) throw err;
        const page = await account(request, ctx, { twoFactorError: refusal(err) });
        return sendPage(reply, page, err.status, 'no-store');
      }
    });
  }

  form('begin', async (request, user, fields) => {
    const mode = MODES.find((m) => m === fields.mode);
    if (mode === undefined) throw new ProtocolError('VALIDATION_ERROR', 'Choose when a code is asked');
    await auth.confirmPassword(request.ctx.tenant, { name: user.name, password: fields.password ?? '', clientIp: request.ip });
    if (SecondFactorService.active(user)) throw new ProtocolError('CONFLICT', 'Two-factor sign-in is on already');
    const url = await secondFactors.begin(request.ctx.tenant, user, mode, new URL(request.ctx.baseUrl).host);
    return { state: 'pending', url };
  });

  form('confirm', async (request, user, fields) => {
    const recoveryCodes = await secondFactors.confirm(request.ctx.tenant, user, fields.code);
    return { state: 'confirmed', mode: user.secondFactor!.mode, recoveryCodes };
  });

  form('disable', async (request, user, fields) => {
    await auth.confirmPassword(request.ctx.tenant, { name: user.name, password: fields.password ?? '', clientIp: request.ip });
    if (!SecondFactorService.active(user)) return { state: 'off' };
    await secondFactors.check(request.ctx.tenant, user, fields.code, 'Switching two-factor sign-in off');
    await secondFactors.disable(request.ctx.tenant, user.name);
    return { state: 'off' };
  });
}

/** A refusal in the words of the page (the API's 401s are a wrong password or code here). */
function refusal(err: ProtocolError): string {
  if (err.code === 'UNAUTHORIZED') {
    return err.headers['www-authenticate'] === 'OTP'
      ? 'That code is not the current one of your authenticator app (or a recovery code): try the next code.'
      : 'Wrong password.';
  }
  return sentence(err.details);
}
