import { html, type SafeHtml } from '../../html.js';
import type { InstallSnippet } from '../../install-snippet.js';

/**
 * A block of text with its Copy button. The button names what it copies ("Copy the npm
 * command"), so that a list of a page's buttons tells them apart; it appears only when the
 * script runs. The text wraps instead of scrolling: nothing to scroll, nothing to focus.
 */
function copyable(id: string, heading: string, what: string, text: string, headingLevel: 'h3' | 'h4' = 'h3'): SafeHtml {
  const title = headingLevel === 'h3' ? html`<h3 id="${id}-h">${heading}</h3>` : html`<h4 id="${id}-h">${heading}</h4>`;
  return html`<div class="copyable">
    <div class="copy-row">
      ${title}
      <button type="button" class="secondary small" data-copy="${id}" data-label="${what}" hidden>
        <span class="copy-text">Copy</span><span class="visually-hidden"> the ${what}</span>
      </button>
    </div>
    <pre class="wrap-code" aria-labelledby="${id}-h"><code id="${id}">${text}</code></pre>
  </div>`;
}

/** Install: `pkg add` (one line for engines with the same command), how to get pkg, Unity's window and manifest, npm, the tarball. */
export function installSection(install: InstallSnippet): SafeHtml {
  const several = install.commands.length > 1;
  return html`<section aria-labelledby="install-h" class="install">
    <h2 id="install-h">Install</h2>
    ${
      install.login
        ? html`<p>This registry asks for a sign-in before downloads: log in once with <code>${install.login}</code>.</p>`
        : ''
    }
    ${install.commands.map((c, i) =>
      copyable(
        i === 0 ? 'install-command' : `install-command-${i + 1}`,
        `With pkg, ${lowerFirst(c.label)}`,
        several ? `pkg command for ${c.engines.join(' and ')}` : 'pkg command',
        c.command,
      ),
    )}
    <p class="hint">
      <code>pkg</code> is this registry's command-line client for Unity, Godot 4 and Unreal Engine 5 projects: install it with
      Node.js from the release's npm package (<code>npm install -g pkg-registry-client-&lt;version&gt;.tgz</code>), or copy its
      single executable onto your PATH as <code>pkg</code>. Run the line in the project's folder.
    </p>
    ${install.unity ? unityBlock(install.unity) : ''} ${copyable('install-npm', 'With npm', 'npm command', install.npm)}
    ${
      install.tarball
        ? html`<h3 id="install-download-h">Download</h3>
            <p>
              <a href="${install.tarball.url}" download>${install.tarball.file}</a>: the package's files are under
              <code>package/</code>; <code>pkg add</code> unpacks them into <code>addons/</code> (Godot) or
              <code>Plugins/</code> (Unreal) and records them for you.
            </p>`
        : ''
    }
    <p id="copy-status" class="copy-status" role="status" aria-live="polite"></p>
  </section>`;
}

function unityBlock(unity: NonNullable<InstallSnippet['unity']>): SafeHtml {
  return html`<h3 id="install-upm-h">With the Unity Package Manager</h3>
    <ol class="steps">
      <li>
        In Unity, open <strong>Edit › Project Settings › Package Manager</strong>. Under <strong>Scoped Registries</strong> press
        <strong>+</strong> and enter Name <code>${unity.registry.name}</code>, URL <code>${unity.registry.url}</code> and
        ${unity.registry.scopes.length === 1 ? 'the Scope' : html`these Scopes, one a line`}:
        ${unity.registry.scopes.map((s, i) => html`${i > 0 ? ', ' : ''}<code>${s}</code>`)}. Press <strong>Save</strong>.
      </li>
      <li>
        Open <strong>Window › Package Manager</strong>, press <strong>+</strong> and choose <strong>Add package by name…</strong>:
        Name <code>${unity.name}</code>, Version <code>${unity.version}</code>, then <strong>Add</strong>.
      </li>
    </ol>
    ${copyable('install-manifest', 'Or in Packages/manifest.json', 'manifest snippet', unity.manifest, 'h4')}
    <p class="hint">Merge the scoped registry and the dependency into your project's manifest.</p>`;
}

function lowerFirst(text: string): string {
  return text.charAt(0).toLowerCase() + text.slice(1);
}
