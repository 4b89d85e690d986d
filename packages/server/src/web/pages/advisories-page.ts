import { ADVISORY_SEVERITIES, type AdvisoryRecord } from '../../storage/ports.js';
import { CSRF_FIELD } from '../csrf.js';
import { html, safeHttpUrl, type SafeHtml } from '../html.js';
import type { AdvisoryMark } from '../package-view.js';
import { formError, formField } from './form-field.js';
import { layout } from './layout.js';
import type { PageContext } from './page-context.js';
import { advisoriesPath, packagePath } from './urls.js';

export interface AdvisoriesView {
  name: string;
  /** This registry's advisories of the package, withdrawn ones too, oldest first. */
  own: AdvisoryRecord[];
  /** The upstream's, for a name an uplink covers (those affecting a version this registry holds). */
  upstream: (AdvisoryMark & { id: string })[];
  /** Why the upstream's may be missing or old (it could not be asked). */
  notes: string[];
  /** The viewer may publish and withdraw (a maintainer or an administrator): the forms are shown. */
  manage: boolean;
  notice?: string;
  /** Why a form was refused (`publish`, or `withdraw:<id>`), and what the publish form held. */
  error?: { form: string; message: string; fields: Record<string, string> };
}

/** An advisory's range of fixed versions, in words (`<0.0.0-0` is the API's "none yet"). */
function fixedIn(patched: string): string {
  return patched === '<0.0.0-0' ? 'no fix yet' : patched;
}

/**
 * A package's security advisories: this registry's (in force, then withdrawn), and the upstream
 * registry's for a package that comes through an uplink, marked as such. Its maintainers and the
 * registry's administrators publish and withdraw here, with the checks of the HTTP API
 * (services/advisories.ts); nobody else sees the forms.
 */
export function advisoriesPage(ctx: PageContext, view: AdvisoriesView): string {
  const inForce = view.own.filter((a) => a.withdrawnAt === null);
  const withdrawn = view.own.filter((a) => a.withdrawnAt !== null);
  // A refusal beside its form; one whose form is not shown (a withdrawal, or a publish by someone who may not) at the top.
  const topError = view.error && (view.error.form !== 'publish' || !view.manage) ? view.error : undefined;
  const body = html`<div class="manage">
    <h1>Security advisories of <bdi>${view.name}</bdi></h1>
    <p>
      <a href="${packagePath(view.name)}">Back to <bdi>${view.name}</bdi></a>
    </p>
    ${view.notice ? html`<div class="ok" role="status">${view.notice}</div>` : ''}
    ${topError ? html`<div class="error" role="alert">${topError.message}</div>` : ''}
    <section aria-labelledby="in-force-h">
      <h2 id="in-force-h">In force (${inForce.length})</h2>
      ${inForce.length === 0 ? html`<p class="muted">None from this registry.</p>` : inForce.map((a) => advisory(ctx, view, a))}
    </section>
    ${
      view.upstream.length > 0 || view.notes.length > 0
        ? html`<section aria-labelledby="upstream-h">
            <h2 id="upstream-h">From the upstream registry</h2>
            ${view.notes.map((note) => html`<div class="notice" role="note">${note}</div>`)}
            ${
              view.upstream.length === 0
                ? html`<p class="muted">None known for the versions held here.</p>`
                : html`<ul>
                    ${view.upstream.map(
                      (a) =>
                        html`<li>
                          <span class="mark warn-mark">${a.severity}</span> <code>${a.id}</code>
                          ${a.url ? html`<a href="${a.url}" rel="nofollow ugc noopener noreferrer"><bdi>${a.title}</bdi></a>` : html`<bdi>${a.title}</bdi>`}
                          <span class="muted">(from the upstream registry <bdi>${a.upstream ?? ''}</bdi>)</span>
                        </li>`,
                    )}
                  </ul>`
            }
          </section>`
        : ''
    }
    ${
      withdrawn.length > 0
        ? html`<section aria-labelledby="withdrawn-h">
            <h2 id="withdrawn-h">Withdrawn (${withdrawn.length})</h2>
            ${withdrawn.map((a) => advisory(ctx, view, a))}
          </section>`
        : ''
    }
    ${view.manage ? publishForm(ctx, view) : ''}
  </div>`;
  return layout(ctx, { title: `Security advisories of ${view.name}`, body });
}

function advisory(ctx: PageContext, view: AdvisoriesView, a: AdvisoryRecord): SafeHtml {
  const link = a.url ? safeHttpUrl(a.url) : undefined;
  const anchor = `advisory-${a.id}`;
  return html`<article aria-labelledby="${anchor}-h" id="${anchor}">
    <h3 id="${anchor}-h"><span class="mark warn-mark">${a.severity}</span> <bdi>${a.title}</bdi></h3>
    <dl class="facts">
      <dt>Id</dt>
      <dd><code>${a.id}</code></dd>
      <dt>Affected versions</dt>
      <dd><code>${a.vulnerableVersions}</code></dd>
      <dt>Fixed in</dt>
      <dd><code>${fixedIn(a.patchedVersions)}</code></dd>
      <dt>Published</dt>
      <dd><time datetime="${a.publishedAt}">${a.publishedAt.slice(0, 10)}</time> by <bdi>${a.publishedBy}</bdi></dd>
      ${
        a.withdrawnAt
          ? html`<dt>Withdrawn</dt>
              <dd><time datetime="${a.withdrawnAt}">${a.withdrawnAt.slice(0, 10)}</time></dd>`
          : ''
      }
    </dl>
    ${a.description ? html`<p dir="auto" class="advisory-text">${a.description}</p>` : ''}
    ${link ? html`<p><a href="${link}" rel="nofollow ugc noopener noreferrer">More about ${a.id}</a></p>` : ''}
    ${
      view.manage && a.withdrawnAt === null
        ? html`<form method="post" action="${advisoriesPath(view.name)}/${encodeURIComponent(a.id)}/withdraw">
            <input type="hidden" name="${CSRF_FIELD}" value="${ctx.csrf}" />
            <button type="submit" class="secondary small" aria-label="Withdraw advisory ${a.id}">Withdraw</button>
          </form>`
        : ''
    }
  </article>`;
}

function publishForm(ctx: PageContext, view: AdvisoriesView): SafeHtml {
  const error = view.error?.form === 'publish' ? view.error : undefined;
  const errorId = error ? 'publish-error' : undefined;
  const fields = error?.fields ?? {};
  const severity = fields.severity ?? 'moderate';
  return html`<section aria-labelledby="publish-h">
    <h2 id="publish-h">Publish an advisory</h2>
    <p>An advisory with the id of one published before replaces it (and brings a withdrawn one back).</p>
    ${formError('publish-error', error?.message)}
    <form method="post" action="${advisoriesPath(view.name)}">
      <input type="hidden" name="${CSRF_FIELD}" value="${ctx.csrf}" />
      ${formField({
        id: 'advisory-id',
        name: 'id',
        label: 'Id',
        note: '(optional)',
        maxlength: 64,
        value: fields.id ?? '',
        hint: 'A CVE or GHSA id, for example; empty: the registry makes one.',
        errorId,
      })}
      <div class="field">
        <label for="advisory-severity">Severity</label>
        <select id="advisory-severity" name="severity">
          ${ADVISORY_SEVERITIES.map((s) => html`<option value="${s}" ${s === severity ? 'selected' : ''}>${s}</option>`)}
        </select>
      </div>
      ${formField({
        id: 'advisory-vulnerable',
        name: 'vulnerable_versions',
        label: 'Affected versions',
        required: true,
        maxlength: 256,
        value: fields.vulnerable_versions ?? '',
        hint: html`A semver range, for example <code>&lt;1.2.3</code>.`,
        errorId,
      })}
      ${formField({
        id: 'advisory-patched',
        name: 'patched_versions',
        label: 'Fixed in',
        note: '(optional)',
        maxlength: 256,
        value: fields.patched_versions ?? '',
        hint: html`A semver range, for example <code>&gt;=1.2.3</code>; empty: no fix yet.`,
        errorId,
      })}
      ${formField({
        id: 'advisory-title',
        name: 'title',
        label: 'Title',
        required: true,
        maxlength: 200,
        value: fields.title ?? '',
        errorId,
      })}
      <div class="field">
        <label for="advisory-description">Description <span class="muted">(optional)</span></label>
        <textarea
          id="advisory-description"
          name="description"
          rows="5"
          maxlength="10000"
          ${errorId ? html`aria-describedby="${errorId}"` : ''}
        >
${fields.description ?? ''}</textarea>
      </div>
      ${formField({
        id: 'advisory-url',
        name: 'url',
        label: 'Link',
        note: '(optional)',
        type: 'url',
        maxlength: 2048,
        value: fields.url ?? '',
        errorId,
      })}
      <button type="submit">Publish advisory</button>
    </form>
  </section>`;
}
