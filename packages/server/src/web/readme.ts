import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import type { HLJSApi, LanguageFn } from 'highlight.js';
import type MarkdownIt from 'markdown-it';
import type sanitizeHtml from 'sanitize-html';
import { BudgetLru } from '../storage/budget-lru.js';
import { escapeHtml, trustedHtml, type SafeHtml } from './html.js';
import { resolveReadmeUrl, type ReadmeSource } from './readme-links.js';

export type { ReadmeSource };

/** Readmes longer than this are cut (rendering time and page weight stay bounded). */
export const MAX_README_CHARS = 512 * 1024;

/** Bytes of rendered readmes kept, so that a popular package's page does not render its readme per view. */
const RENDERED_BUDGET = 8 * 1024 * 1024;

const SAFE_DATA_IMAGE = /^data:image\/(gif|png|jpeg|webp)[;,]/i;
const LINK_REL = 'nofollow ugc noopener noreferrer';

/**
 * Languages highlighted on the server, by the names readmes give their code blocks. GDScript,
 * which highlight.js does not know, is close enough to Python to read well in its colours.
 */
const LANGUAGES: Record<string, string[]> = {
  bash: ['bash', 'sh', 'zsh'],
  shell: ['shell', 'console', 'shellsession'],
  c: ['c', 'h'],
  cpp: ['cpp', 'c++', 'cc', 'hpp', 'cxx'],
  csharp: ['csharp', 'cs', 'c#'],
  css: ['css'],
  diff: ['diff', 'patch'],
  glsl: ['glsl', 'hlsl', 'shader', 'shaderlab'],
  ini: ['ini', 'toml', 'cfg', 'godot', 'tscn', 'tres'],
  java: ['java'],
  javascript: ['javascript', 'js', 'jsx', 'mjs', 'cjs'],
  json: ['json', 'jsonc', 'json5', 'uproject', 'uplugin'],
  kotlin: ['kotlin', 'kt'],
  lua: ['lua'],
  markdown: ['markdown', 'md'],
  powershell: ['powershell', 'ps1', 'pwsh'],
  python: ['python', 'py', 'gdscript', 'gd'],
  typescript: ['typescript', 'ts', 'tsx'],
  xml: ['xml', 'html', 'xhtml', 'svg', 'uxml', 'csproj'],
  yaml: ['yaml', 'yml', 'asmdef'],
};

const NAMES: Record<string, string> = {
  bash: 'Bash',
  shell: 'Shell',
  c: 'C',
  cpp: 'C++',
  csharp: 'C#',
  css: 'CSS',
  diff: 'Diff',
  glsl: 'Shader',
  ini: 'INI',
  java: 'Java',
  javascript: 'JavaScript',
  json: 'JSON',
  kotlin: 'Kotlin',
  lua: 'Lua',
  markdown: 'Markdown',
  powershell: 'PowerShell',
  python: 'Python',
  typescript: 'TypeScript',
  xml: 'XML',
  yaml: 'YAML',
};

/** What GitHub renders of raw HTML in a readme, and no more: no script, style, form, frame or event handler. */
const ALLOWED_TAGS = [
  'a',
  'abbr',
  'b',
  'blockquote',
  'br',
  'code',
  'dd',
  'del',
  'details',
  'div',
  'dl',
  'dt',
  'em',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'hr',
  'i',
  'img',
  'ins',
  'kbd',
  'li',
  'mark',
  'ol',
  'p',
  'picture',
  'pre',
  'q',
  'rp',
  'rt',
  'ruby',
  's',
  'samp',
  'small',
  'source',
  'span',
  'strong',
  'sub',
  'summary',
  'sup',
  'table',
  'tbody',
  'td',
  'tfoot',
  'th',
  'thead',
  'tr',
  'tt',
  'ul',
  'var',
];
const ALIGNED = ['div', 'p', 'h2', 'h3', 'h4', 'h5', 'h6', 'td', 'th', 'img'];

type Markdown = InstanceType<typeof MarkdownIt>;
type Sanitize = typeof sanitizeHtml;

interface Libraries {
  md: Markdown;
  sanitize: Sanitize;
  hljs: HLJSApi;
  /** Alias → highlight.js language name. */
  aliases: Map<string, string>;
}

let libraries: Libraries | undefined;
const rendered = new BudgetLru<string>(RENDERED_BUDGET);

/**
 * Loaded on the first readme: a registry that serves no pages never loads them. markdown-it
 * parses (raw HTML let through, to be sanitized), highlight.js colours code blocks, and
 * sanitize-html keeps only GitHub's subset of what came out.
 */
function load(): Libraries {
  if (libraries) return libraries;
  const require = createRequire(import.meta.url);
  const Renderer = require('markdown-it') as typeof MarkdownIt;
  const hljs = require('highlight.js/lib/core') as HLJSApi;
  const aliases = new Map<string, string>();
  for (const [language, names] of Object.entries(LANGUAGES)) {
    hljs.registerLanguage(language, require(`highlight.js/lib/languages/${language}`) as LanguageFn);
    for (const name of names) aliases.set(name, language);
  }
  const md = new Renderer({
    html: true,
    linkify: true,
    typographer: false,
    highlight: (code, lang) => {
      const language = aliases.get(lang.trim().toLowerCase());
      if (!language) return '';
      return hljs.highlight(code, { language, ignoreIllegals: true }).value;
    },
  });
  md.validateLink = validateLink;
  // The page's own <h1> is the package name: readme headings start one level lower.
  md.core.ruler.push('demote_headings', (state) => {
    for (const token of state.tokens) {
      if ((token.type === 'heading_open' || token.type === 'heading_close') && token.tag !== 'h6') {
        token.tag = `h${Number(token.tag.slice(1)) + 1}`;
      }
    }
  });
  const sanitize = require('sanitize-html') as Sanitize;
  return (libraries = { md, sanitize, hljs, aliases });
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
  return scheme === 'http' || scheme === 'https' || scheme === 'mailto';
}

function decodePercent(url: string): string {
  try {
    return decodeURIComponent(url);
  } catch {
    return url;
  }
}

/** `text-align` of markdown table cells (a style attribute, which the CSP forbids) as `align`. */
function alignOf(attribs: Record<string, string>): Record<string, string> {
  const align = /text-align:\s*(left|right|center)/i.exec(attribs.style ?? '')?.[1]?.toLowerCase() ?? attribs.align;
  const { style: _style, ...rest } = attribs;
  return align ? { ...rest, align } : rest;
}

function sanitizeOptions(source: ReadmeSource): sanitizeHtml.IOptions {
  return {
    allowedTags: ALLOWED_TAGS,
    allowedAttributes: {
      a: ['href', 'title', 'rel'],
      img: ['src', 'alt', 'title', 'width', 'height', 'align', 'loading', 'referrerpolicy'],
      source: ['srcset', 'media', 'type'],
      details: ['open'],
      ol: ['start', 'reversed', 'type'],
      td: ['align', 'colspan', 'rowspan'],
      th: ['align', 'colspan', 'rowspan', 'scope'],
      ...Object.fromEntries(ALIGNED.filter((t) => !['td', 'th', 'img'].includes(t)).map((t) => [t, ['align']])),
      '*': ['lang', 'dir'],
    },
    allowedClasses: { code: ['hljs', 'language-*'], span: ['hljs-*'] },
    allowedSchemes: ['http', 'https', 'mailto'],
    allowedSchemesByTag: { img: ['http', 'https', 'data'] },
    allowedSchemesAppliedToAttributes: ['href', 'src', 'srcset'],
    allowProtocolRelative: false,
    // The contents of dropped elements that are code or style, never text to show.
    nonTextTags: ['script', 'style', 'textarea', 'option', 'noscript', 'iframe', 'object', 'embed', 'template', 'title'],
    transformTags: {
      // Readme headings start at <h2>: the page's <h1> is the package's name.
      h1: 'h2',
      a: (tagName, attribs) => {
        const href = attribs.href === undefined ? undefined : resolveReadmeUrl(attribs.href, 'link', source);
        const { href: _href, ...rest } = attribs;
        return { tagName, attribs: href ? { ...rest, href, rel: LINK_REL } : { ...rest, rel: LINK_REL } };
      },
      img: (tagName, attribs) => {
        const raw = attribs.src ?? '';
        const src = /^data:/i.test(raw.trim())
          ? SAFE_DATA_IMAGE.test(raw.trim())
            ? raw.trim()
            : undefined
          : resolveReadmeUrl(raw, 'image', source);
        // An image whose source cannot be shown leaves its alt text.
        if (!src) return { tagName: 'span', attribs: {}, text: attribs.alt ?? '' };
        const { src: _src, ...rest } = attribs;
        return { tagName, attribs: { ...rest, src, loading: 'lazy', referrerpolicy: 'no-referrer', alt: attribs.alt ?? '' } };
      },
      td: (tagName, attribs) => ({ tagName, attribs: alignOf(attribs) }),
      th: (tagName, attribs) => ({ tagName, attribs: alignOf(attribs) }),
    },
  };
}

/**
 * Wide code and tables scroll inside their own region, which keyboard users can focus and
 * screen readers can name. Added after sanitizing (authors cannot add focusable regions), to
 * markup the sanitizer wrote: every `<pre` or `<table` in it is an element, never text.
 */
function scrollRegions(htmlText: string, languageNames: Map<string, string>): string {
  let code = 0;
  let table = 0;
  return htmlText
    .replace(/<pre>(<code class="language-([^"]+)">)?/g, (match: string, _code: string | undefined, lang: string | undefined) => {
      code++;
      const language = lang ? languageNames.get(lang.toLowerCase()) : undefined;
      const label = `Code example ${code}${language ? ` (${NAMES[language]})` : ''}`;
      return `<div class="scroll" role="region" tabindex="0" aria-label="${escapeHtml(label)}">${match}`;
    })
    .replace(/<\/pre>/g, '</pre></div>')
    .replace(/<table>/g, () => `<div class="scroll" role="region" tabindex="0" aria-label="Table ${++table}"><table>`)
    .replace(/<\/table>/g, '</table></div>');
}

/** The readme as sanitized HTML, or undefined when there is none. */
export function renderReadme(
  markdown: string,
  source: ReadmeSource = { repository: undefined, directory: '' },
): SafeHtml | undefined {
  if (markdown.trim().length === 0) return undefined;
  const key = createHash('sha256')
    .update(markdown)
    .update('\0')
    .update(source.repository ?? '')
    .update('\0')
    .update(source.directory)
    .digest('base64');
  const kept = rendered.get(key);
  if (kept !== undefined) return trustedHtml(kept);
  const { md, sanitize, aliases } = load();
  const cut = markdown.length > MAX_README_CHARS ? `${markdown.slice(0, MAX_README_CHARS)}\n\n*(readme truncated)*` : markdown;
  const clean = scrollRegions(sanitize(md.render(cut), sanitizeOptions(source)), aliases);
  rendered.set(key, clean, clean.length * 2);
  return trustedHtml(clean);
}
