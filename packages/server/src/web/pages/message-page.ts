import { html, type SafeHtml } from '../html.js';
import { layout } from './layout.js';
import type { PageContext } from './page-context.js';

/** A page with a heading and a message: errors, "not found", "you can close this window". */
export function messagePage(
  ctx: PageContext,
  title: string,
  message: SafeHtml | string,
  tone: 'error' | 'ok' | 'plain' = 'plain',
  /** The document's title when it should say more than the heading (each error page its own). */
  documentTitle?: string,
): string {
  const body = html`<h1>${title}</h1>
    ${tone === 'plain' ? html`<p>${message}</p>` : html`<div class="${tone}" role="${tone === 'error' ? 'alert' : 'status'}">${message}</div>`}
    <p><a href="/">Back to the packages</a></p>`;
  return layout(ctx, { title: documentTitle ?? title, body });
}
