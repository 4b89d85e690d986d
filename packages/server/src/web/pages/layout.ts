import { CSRF_FIELD } from '../csrf.js';
import { html, type SafeHtml } from '../html.js';
import type { PageContext } from './page-context.js';

export interface PageOptions {
  title: string;
  body: SafeHtml;
  /** Search text to show in the header's search box. */
  query?: string;
  /** The home page has its own big search box. */
  headerSearch?: boolean;
  /** Load the copy-button script (package pages only). */
  copyScript?: boolean;
}

/** The page shell: header with search and account, main content, footer. */
export function layout(ctx: PageContext, options: PageOptions): string {
  const { assets } = ctx;
  const site = ctx.tenant ? ctx.tenant : ctx.host;
  const page = html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="color-scheme" content="light dark" />
        <meta name="referrer" content="same-origin" />
        <title>${options.title} · ${site}</title>
        <link rel="stylesheet" href="${assets.style.path}" />
        <link rel="icon" href="${assets.icon.path}" type="image/svg+xml" />
        ${options.copyScript ? html`<script src="${assets.copy.path}" defer></script>` : ''}
      </head>
      <body>
        <a class="skip" href="#main">Skip to content</a>
        <header class="site-header">
          <div class="wrap">
            <a class="brand" href="/"
              >pkg-registry <span class="site">${site}</span>${ctx.tenant ? html` <span class="tenant">packages</span>` : ''}</a
            >
            ${options.headerSearch === false ? '' : searchForm('header-q', options.query ?? '')}
            <nav class="account" aria-label="Account">
              ${
                ctx.viewer
                  ? html`<a href="/-/web/account">${ctx.viewer}</a>
                      <form method="post" action="/-/web/signout">
                        <input type="hidden" name="${CSRF_FIELD}" value="${ctx.csrf}" /><button
                          type="submit"
                          class="secondary small"
                        >
                          Sign out
                        </button>
                      </form>`
                  : html`<a href="/-/web/signin">Sign in</a>`
              }
            </nav>
          </div>
        </header>
        <main id="main" class="wrap">${options.body}</main>
        <footer>
          <div class="wrap">
            pkg-registry: packages for Unity, Godot and Unreal Engine, installable with <code>pkg</code> (and, for Unity, npm and
            the Unity Package Manager).
          </div>
        </footer>
      </body>
    </html> `;
  return page.value;
}

/** The search form; `id` keeps labels unique when a page has two. */
export function searchForm(id: string, query: string): SafeHtml {
  return html`<form class="search" role="search" action="/-/web/search" method="get">
    <label for="${id}" class="visually-hidden">Search packages</label>
    <input id="${id}" name="q" type="search" value="${query}" placeholder="Search packages" maxlength="256" autocomplete="off" />
    <button type="submit">Search</button>
  </form>`;
}
