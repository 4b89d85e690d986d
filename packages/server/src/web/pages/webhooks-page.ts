import type { WebhookDelivery } from '../../storage/ports.js';
import type { WebhookSummary } from '../../services/webhook-admin.js';
import { html, type SafeHtml } from '../html.js';
import { layout } from './layout.js';
import type { PageContext } from './page-context.js';

export const WEBHOOKS_PAGE = '/-/web/webhooks';

export interface WebhooksView {
  hooks: { hook: WebhookSummary; deliveries: WebhookDelivery[] }[];
}

/**
 * The registry's webhooks and their latest deliveries, for its administrators. It shows; the
 * command line and the HTTP API change (a secret is shown once, where it is made).
 */
export function webhooksPage(ctx: PageContext, view: WebhooksView): string {
  const body = html`<h1>Webhooks</h1>
    <p>
      Where this registry sends its changes, and how the latest deliveries went. Add, remove, redeliver and rotate secrets with
      <code>pkg-registry webhook</code> or the HTTP API.
    </p>
    ${view.hooks.length === 0 ? html`<p class="muted">No webhooks.</p>` : view.hooks.map(({ hook, deliveries }) => section(hook, deliveries))}`;
  return layout(ctx, { title: 'Webhooks', body });
}

function section(hook: WebhookSummary, deliveries: WebhookDelivery[]): SafeHtml {
  return html`<h2 id="hook-${hook.id}">${hook.url}</h2>
    <p>
      Webhook <code>${hook.id}</code>, events <code>${hook.events.join(', ')}</code>, added
      <time datetime="${hook.createdAt}">${hook.createdAt.slice(0, 10)}</time> by ${hook.createdBy};
      ${hook.signingSecrets === 1 ? 'one secret signs' : `${hook.signingSecrets} secrets sign (a rotation is under way)`}.
    </p>
    ${
      deliveries.length === 0
        ? html`<p class="muted">No deliveries yet.</p>`
        : html`<table>
            <thead>
              <tr>
                <th scope="col">Delivery</th>
                <th scope="col">Event</th>
                <th scope="col">Status</th>
                <th scope="col">Attempts</th>
                <th scope="col">Last attempt</th>
                <th scope="col">Last answer</th>
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
                  </tr>`,
              )}
            </tbody>
          </table>`
    }`;
}
