import { createRequire } from 'node:module';
import type MarkdownIt from 'markdown-it';
import { trustedHtml, type SafeHtml } from './html.js';

/** Readmes longer than this are cut (rendering time and page weight stay bounded). */
export const MAX_README_CHARS = 512 * 1024;

const ALLOWED_SCHEMES = new Set(['http', 'https', 'mailto']);
const SAFE_DATA_IMAGE = /^data:image\/(gif|png|jpeg|webp);/;

type Markdown = InstanceType<typeof MarkdownIt>;

let configured: Markdown | undefined;

/**
 * Markdown with raw HTML disabled: a `<script>` or `onerror=` in a readme is shown as text,
 * never parsed. Links and images may only be http(s), mailto, relative, or inline raster
 * images; links get `rel="nofollow ugc noopener noreferrer"` since authors are strangers.
 * Made on the first readme: a registry that serves no pages never loads markdown-it.
 */
function markdownIt(): Markdown {
  if (configured) return configured;
  const Renderer = createRequire(import.meta.url)('markdown-it') as typeof MarkdownIt;
  const md = new Renderer({ html: false, linkify: true, typographer: false });
  md.validateLink = validateLink;
  // The page's own <h1> is the package name: readme headings start one level lower.
  md.core.ruler.push('demote_headings', (state) => {
    for (const token of state.tokens) {
      if ((token.type === 'heading_open' || token.type === 'heading_close') && token.tag !== 'h6') {
        token.tag = `h${Number(token.tag.slice(1)) + 1}`;
      }
    }
  });
  const renderLinkOpen =
    md.renderer.rules.link_open ?? ((tokens, idx, options, _env, self) => self.renderToken(tokens, idx, options));
  md.renderer.rules.link_open = (tokens, idx, options, env, self) => {
    tokens[idx]!.attrSet('rel', 'nofollow ugc noopener noreferrer');
    return renderLinkOpen(tokens, idx, options, env, self);
  };
  const renderImage = md.renderer.rules.image!;
  md.renderer.rules.image = (tokens, idx, options, env, self) => {
    tokens[idx]!.attrSet('loading', 'lazy');
    tokens[idx]!.attrSet('referrerpolicy', 'no-referrer');
    return renderImage(tokens, idx, options, env, self);
  };
  return (configured = md);
}

function validateLink(url: string): boolean {
  // Judge the URL as a browser would read it: percent-decoded, without the tabs, newlines and
  // control characters browsers drop (`jav&#x09;ascript:` must not slip through).
  const value = decodePercent(url)
    // eslint-disable-next-line no-control-regex -- matching control characters is the point
    .replace(/[\u0000-\u0020\u007f]/g, '')
    .toLowerCase();
  const scheme = /^([a-z][a-z0-9+.-]*):/.exec(value)?.[1];
  if (scheme === undefined) return true;
  if (scheme === 'data') return SAFE_DATA_IMAGE.test(value);
  return ALLOWED_SCHEMES.has(scheme);
}

function decodePercent(url: string): string {
  try {
    return decodeURIComponent(url);
  } catch {
    return url;
  }
}

/** The readme as sanitized HTML, or undefined when there is none. */
export function renderReadme(markdown: string): SafeHtml | undefined {
  if (markdown.trim().length === 0) return undefined;
  const source = markdown.length > MAX_README_CHARS ? `${markdown.slice(0, MAX_README_CHARS)}\n\n*(readme truncated)*` : markdown;
  return trustedHtml(markdownIt().render(source));
}
