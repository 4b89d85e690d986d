import type { PackageSummary } from '../catalog.js';
import { html } from '../html.js';
import { layout, searchForm } from './layout.js';
import { ENGINE_NAMES, packageList } from './package-list.js';
import { searchPath } from './urls.js';
import type { PageContext } from './page-context.js';

export interface HomeView {
  recent: PackageSummary[];
  popular: PackageSummary[];
}

export function homePage(ctx: PageContext, view: HomeView): string {
  const body = html`<section class="hero">
      <h1>Find a package</h1>
      <p class="muted">
        Browse the Unity, Godot and Unreal Engine packages of this registry, read about them and copy what installs them.
      </p>
      ${searchForm('home-q', '')}
      <nav class="engine-links" aria-label="Packages by engine">
        Browse the packages for
        ${(['unity', 'godot', 'unreal'] as const).map(
          (e, i) => html`${i > 0 ? (i === 2 ? ' or ' : ', ') : ''}<a href="${searchPath(`engine:${e}`)}">${ENGINE_NAMES[e]}</a>`,
        )}.
      </nav>
    </section>
    <div class="columns">
      <section aria-labelledby="recent-h">
        <h2 id="recent-h">Recently updated</h2>
        ${packageList(view.recent, 'No packages have been published yet.', { downloads: 'week', now: ctx.now })}
      </section>
      <section aria-labelledby="popular-h">
        <h2 id="popular-h">Most downloaded <span class="muted">(30 days)</span></h2>
        ${packageList(view.popular, 'No downloads have been counted yet.', { downloads: 'month', now: ctx.now })}
      </section>
    </div>`;
  return layout(ctx, { title: 'Packages', body, headerSearch: false });
}
