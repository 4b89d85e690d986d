import type { WebhookDelivery } from '../../storage/ports.js';
import { DEFAULT_OVERLAP_HOURS, type WebhookSummary } from '../../services/webhook-admin.js';
import { WEBHOOK_EVENT_GROUPS, WEBHOOK_EVENTS } from '../../services/webhook-events.js';
import { CSRF_FIELD } from '../csrf.js';
import { html, type SafeHtml } from '../html.js';
import { formError, formField } from './form-field.js';
import { layout } from './layout.js';
import type { PageContext } from './page-context.js';

export const WEBHOOKS_PAGE = '/-/web/webhooks';

/** Which form a refusal belongs to: `add`, or `<action>:<hook id>` (edit, rotate, delete, redeliver). */
export type WebhookFormKey = string;

export interface WebhooksView {
  hooks: { hook: WebhookSummary; deliveries: WebhookDelivery[] }[];
  /** What the last form did (`Webhook added.`). */
  notice?: string;
  /** A secret just made or set: shown on this page only, once. */
  secret?: { hook: string; secret: string };
  /** Why a form was refused, and what it held (never a secret). */
  error?: { form: WebhookFormKey; message: string; fields: Record<string, string> };
}

/**
 * The registry's webhooks, for its administrators: add one, change its URL and events, rotate
 * its secret, delete it, read its latest deliveries and send one again. Every form checks what
 * the HTTP API checks (services/webhook-admin.ts) and carries the page's CSRF token.
 */
export function webhooksPage(ctx: PageContext, view: WebhooksView): string {
  const body = html`<div class="manage">
    <h1>Webhooks</h1>
    <p>
      Where this registry sends its changes, signed with each webhook's secret (the <code>x-pkg-signature-256</code> header), and
      how the latest deliveries went. The same can be done with <code>pkg-registry webhook</code> or the HTTP API.
    </p>
    ${view.notice ? html`<div class="ok" role="status">${view.notice}</div>` : ''}
    ${view.error && !formKeys(view).has(view.error.form) ? html`<div class="error" role="alert">${view.error.message}</div>` : ''}
    ${view.hooks.length === 0 ? html`<p class="muted">No webhooks.</p>` : view.hooks.map(({ hook, deliveries }) => section(ctx, view, hook, deliveries))}
    ${addForm(ctx, view)}
  </div>`;
  const title = view.secret ? 'Webhooks: the new secret' : 'Webhooks';
  return layout(ctx, { title, body });
}

/** The forms of the page a refusal can be shown beside. */
function formKeys(view: WebhooksView): Set<WebhookFormKey> {
  const keys = new Set<WebhookFormKey>(['add']);
  for (const { hook, deliveries } of view.hooks) {
    for (const action of ['edit', 'rotate', 'delete']) keys.add(`${action}:${hook.id}`);
    for (const d of deliveries) keys.add(`redeliver:${d.id}`);
  }
  return keys;
}

/** The refusal of form `key` (an alert its fields name with `errorId`), and the values the form is shown with. */
function refusalOf(view: WebhooksView, key: WebhookFormKey, alertId: string) {
  const error = view.error?.form === key ? view.error : undefined;
  return {
    alert: formError(alertId, error?.message),
    errorId: error ? alertId : undefined,
    fields: error?.fields ?? {},
  };
}

function secretShown(secret: string): SafeHtml {
  return html`<div class="ok" role="status">
    <p>The webhook's secret (shown only now: give it to the receiver, which checks each payload's signature with it):</p>
    <p><code id="new-secret">${secret}</code></p>
  </div>`;
}

/** The receiver's URL, in the add form and in each webhook's edit form. */
function urlField(id: string, value: string, errorId: string | undefined): SafeHtml {
  return formField({ id, name: 'url', label: 'Receiver URL', type: 'url', required: true, maxlength: 2048, value, errorId });
}

function eventsField(id: string, value: string): SafeHtml {
  return formField({
    id,
    name: 'events',
    label: 'Events',
    required: true,
    maxlength: 1024,
    value,
    hint: html`Comma-separated: events (${WEBHOOK_EVENTS.join(', ')}), groups of them (${WEBHOOK_EVENT_GROUPS.join(', ')}), or
      <code>*</code> for all.`,
  });
}

function addForm(ctx: PageContext, view: WebhooksView): SafeHtml {
  const { alert, errorId, fields } = refusalOf(view, 'add', 'add-error');
  return html`<section aria-labelledby="add-h">
    <h2 id="add-h">Add a webhook</h2>
    ${alert}
    <form method="post" action="${WEBHOOKS_PAGE}">
      <input type="hidden" name="${CSRF_FIELD}" value="${ctx.csrf}" />
      ${urlField('add-url', fields.url ?? '', errorId)} ${eventsField('add-events', fields.events ?? '')}
      ${formField({
        id: 'add-secret',
        name: 'secret',
        label: 'Secret',
        note: '(optional)',
        type: 'password',
        autocomplete: 'off',
        maxlength: 256,
        hint: '16 to 256 characters without spaces; empty: one is made and shown once.',
      })}
      <button type="submit">Add webhook</button>
    </form>
  </section>`;
}

function section(ctx: PageContext, view: WebhooksView, hook: WebhookSummary, deliveries: WebhookDelivery[]): SafeHtml {
  const id = hook.id;
  const edit = refusalOf(view, `edit:${id}`, `edit-error-${id}`);
  const rotate = refusalOf(view, `rotate:${id}`, `rotate-error-${id}`);
  const remove = refusalOf(view, `delete:${id}`, `delete-error-${id}`);
  const redeliverError = deliveries.map((d) => refusalOf(view, `redeliver:${d.id}`, `redeliver-error-${d.id}`).alert);
  return html`<section aria-labelledby="hook-${id}" class="webhook">
    <h2 id="hook-${id}"><bdi>${hook.url}</bdi></h2>
    <p>
      Webhook <code>${id}</code>, events <code>${hook.events.join(', ')}</code>, added
      <time datetime="${hook.createdAt}">${hook.createdAt.slice(0, 10)}</time> by ${hook.createdBy};
      ${hook.signingSecrets === 1 ? 'one secret signs' : `${hook.signingSecrets} secrets sign (a rotation is under way)`}.
    </p>
    ${view.secret?.hook === id ? secretShown(view.secret.secret) : ''}
    <h3>Deliveries</h3>
    ${redeliverError}
    ${deliveries.length === 0 ? html`<p class="muted">No deliveries yet.</p>` : deliveryTable(ctx, hook, deliveries)}
    <details ${edit.alert ? 'open' : ''}>
      <summary>Change the URL or the events</summary>
      ${edit.alert}
      <form method="post" action="${WEBHOOKS_PAGE}/${id}">
        <input type="hidden" name="${CSRF_FIELD}" value="${ctx.csrf}" />
        ${urlField(`url-${id}`, edit.fields.url ?? hook.url, edit.errorId)}
        ${eventsField(`events-${id}`, edit.fields.events ?? hook.events.join(', '))}
        <button type="submit">Save changes</button>
      </form>
    </details>
    <details ${rotate.alert ? 'open' : ''}>
      <summary>Rotate the secret</summary>
      ${rotate.alert}
      <form method="post" action="${WEBHOOKS_PAGE}/${id}/rotate-secret">
        <input type="hidden" name="${CSRF_FIELD}" value="${ctx.csrf}" />
        ${formField({
          id: `secret-${id}`,
          name: 'secret',
          label: 'New secret',
          note: '(optional)',
          type: 'password',
          autocomplete: 'off',
          maxlength: 256,
          hint: 'Empty: one is made and shown once.',
          errorId: rotate.errorId,
        })}
        ${formField({
          id: `overlap-${id}`,
          name: 'overlapHours',
          label: 'Hours the old secret still signs',
          inputmode: 'numeric',
          maxlength: 8,
          value: rotate.fields.overlapHours ?? String(DEFAULT_OVERLAP_HOURS),
          hint: 'Both secrets sign meanwhile, so the receiver can switch without a gap (0 to 720).',
        })}
        <button type="submit">Rotate secret</button>
      </form>
    </details>
    ${remove.alert}
    <form method="post" action="${WEBHOOKS_PAGE}/${id}/delete">
      <input type="hidden" name="${CSRF_FIELD}" value="${ctx.csrf}" />
      <button type="submit" class="secondary" aria-label="Delete webhook to ${hook.url}">Delete webhook</button>
    </form>
  </section>`;
}

function deliveryTable(ctx: PageContext, hook: WebhookSummary, deliveries: WebhookDelivery[]): SafeHtml {
  return html`<div class="table-scroll" role="region" aria-label="Deliveries to ${hook.url}" tabindex="0">
    <table>
      <caption class="visually-hidden">
        Latest deliveries to
        <bdi>${hook.url}</bdi>
      </caption>
      <thead>
        <tr>
          <th scope="col">Delivery</th>
          <th scope="col">Event</th>
          <th scope="col">Status</th>
          <th scope="col">Attempts</th>
          <th scope="col">Last attempt</th>
          <th scope="col">Last answer</th>
          <th scope="col"><span class="visually-hidden">Action</span></th>
        </tr>
      </thead>
      <tbody>
        ${deliveries.map(
          (d) =>
            html`<tr>
              <td><code>${d.id}</code></td>
              <td><code>${d.event}</code></td>
              <td>${d.status}</td>
              <td>${String(d.attempts)}</td>
              <td>
                ${d.lastAttemptAt ? html`<time datetime="${d.lastAttemptAt}">${d.lastAttemptAt.slice(0, 19).replace('T', ' ')}</time>` : '—'}
              </td>
              <td>${d.lastError ?? (d.lastStatus !== null ? `HTTP ${d.lastStatus}` : '—')}</td>
              <td>
                <form method="post" action="${WEBHOOKS_PAGE}/deliveries/${d.id}/redeliver">
                  <input type="hidden" name="${CSRF_FIELD}" value="${ctx.csrf}" />
                  <button type="submit" class="secondary small" aria-label="Redeliver ${d.event} delivery ${d.id}">
                    Redeliver
                  </button>
                </form>
              </td>
            </tr>`,
        )}
      </tbody>
    </table>
  </div>`;
}
