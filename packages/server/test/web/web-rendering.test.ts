import { describe, expect, it } from 'vitest';
import { downloadChart } from '../../src/web/download-chart.js';
import { escapeHtml, html, safeHttpUrl } from '../../src/web/html.js';
import { installSnippet } from '../../src/web/install-snippet.js';
import { redactUrl } from '../../src/plugins/logging.js';
import { MAX_README_CHARS, renderReadme } from '../../src/web/readme.js';

const render = (markdown: string) => renderReadme(markdown)!.value;

describe('html template', () => {
  it('escapes interpolated text, attributes and nested arrays; keeps SafeHtml', () => {
    const evil = `<img src=x onerror="alert('1')">&`;
    const out = html`<p title="${evil}">${evil}${[evil, html`<b>ok</b>`]}${null}${undefined}${false}</p>`.value;
    expect(out).toBe(`<p title="${escapeHtml(evil)}">${escapeHtml(evil)}${escapeHtml(evil)}<b>ok</b></p>`);
    expect(escapeHtml(evil)).toBe('&lt;img src=x onerror=&quot;alert(&#39;1&#39;)&quot;&gt;&amp;');
  });

  it('accepts only http(s) URLs for links', () => {
    expect(safeHttpUrl('https://example.com/a')).toBe('https://example.com/a');
    for (const bad of ['javascript:alert(1)', ' javascript:alert(1)', 'data:text/html,x', 'vbscript:x', '/relative', '', 42]) {
      expect(safeHttpUrl(bad)).toBeUndefined();
    }
  });
});

describe('readme rendering', () => {
  it('drops script, styles, frames, forms and event handlers from raw HTML, keeping the harmless elements', () => {
    const out = render(
      [
        '<script>alert(1)</script>',
        '<img src=x onerror=alert(1)>',
        '<div onclick="x()" style="color:red">hi</div>',
        '<iframe src="https://evil.example"></iframe><style>body{display:none}</style>',
        '<form action="https://evil.example"><input name="a"></form>',
        '<a href="javascript:alert(2)" onmouseover="alert(3)">html link</a>',
      ].join('\n\n'),
    );
    expect(out).not.toMatch(/<(script|img|iframe|style|form|input)\b/);
    expect(out).not.toMatch(/\son[a-z]+=|style=|javascript:|alert\(1\)|display:none/);
    expect(out).toContain('<div>hi</div>');
    expect(out).toContain('<a rel="nofollow ugc noopener noreferrer">html link</a>');
  });

  it.each([
    'javascript:alert(1)',
    'JAVASCRIPT:alert(1)',
    'jav&#x09;ascript:alert(1)',
    'vbscript:msgbox(1)',
    'data:text/html;base64,PHNjcmlwdD4=',
    'file:///etc/passwd',
    'steam://run/1',
  ])('drops the link target %s', (target) => {
    const out = render(`[click](${target}) ![img](${target})`);
    // the markdown stays visible as text; no element carries the target
    expect(out).not.toMatch(/<(a|img)\b/);
    expect(out).not.toMatch(/(href|src)=/);
  });

  it('keeps http(s), mailto, in-page and repository-relative links and inline raster images; links are nofollow', () => {
    const markdown =
      '[a](https://x.io) [b](mailto:a@x.io) [c](./docs/guide.md) [d](#usage) ![e](data:image/png;base64,iVBORw0KGgo=) ![f](img/f.png)';
    const out = render(markdown);
    expect(out).toContain('<a href="https://x.io" rel="nofollow ugc noopener noreferrer">a</a>');
    expect(out).toContain('href="mailto:a@x.io"');
    expect(out).toContain('href="#usage"');
    expect(out).toContain('src="data:image/png;base64,iVBORw0KGgo="');
    // Without a repository a relative path has nowhere to go: text, and the image's alt.
    expect(out).toContain('<a rel="nofollow ugc noopener noreferrer">c</a>');
    expect(out).toContain('<span>f</span>');
    const resolved = renderReadme(markdown, { repository: 'https://gitlab.com/acme/tools', directory: 'unity' })!.value;
    expect(resolved).toContain('href="https://gitlab.com/acme/tools/-/blob/HEAD/unity/docs/guide.md"');
    expect(resolved).toContain('src="https://gitlab.com/acme/tools/-/raw/HEAD/unity/img/f.png"');
    // An unknown host: not guessed.
    const unknown = renderReadme(markdown, { repository: 'https://git.example.com/acme/tools', directory: '' })!.value;
    expect(unknown).toContain('<a rel="nofollow ugc noopener noreferrer">c</a>');
  });

  it('starts headings at h2 (the page title is the h1) and renders GFM tables and code', () => {
    const out = render('# Title\n\n## Sub\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n```cs\nvar x = "<T>";\n```');
    expect(out).toContain('<h2>Title</h2>');
    expect(out).toContain('<h3>Sub</h3>');
    expect(out).toContain('<div class="scroll" role="region" tabindex="0" aria-label="Table 1"><table>');
    expect(out).toContain(
      '<code class="language-cs"><span class="hljs-keyword">var</span> x = <span class="hljs-string">"&lt;T&gt;"</span>;',
    );
    // An unknown language is escaped, not highlighted.
    expect(render('```brainfuck\n<b>+</b>\n```')).toContain('<code class="language-brainfuck">&lt;b&gt;+&lt;/b&gt;');
  });

  it('returns nothing for an empty readme and cuts huge ones', () => {
    expect(renderReadme('  \n')).toBeUndefined();
    const out = render('a'.repeat(MAX_README_CHARS + 10));
    expect(out).toContain('readme truncated');
  });
});

describe('download chart', () => {
  it('draws one bar per week, scaled to the busiest, with a text summary', () => {
    const weeks = [
      { week: '2025-01-06', downloads: 10 },
      { week: '2025-01-13', downloads: 0 },
      { week: '2025-01-20', downloads: 40 },
    ];
    const out = downloadChart(weeks).value;
    expect(out.match(/<rect /g)).toHaveLength(3);
    expect(out).toContain('height="62"');
    expect(out).toContain('<title>Week of 2025-01-20: 40 downloads</title>');
    expect(out).toContain('50 downloads in the last 3 weeks, 40 this week');
    expect(out).not.toMatch(/style=|<script/);
  });

  it('draws a baseline under the bars and labels the axes in HTML text, hidden from screen readers but the caption', () => {
    const out = downloadChart([
      { week: '2025-01-06', downloads: 1 },
      { week: '2025-01-13', downloads: 1200 },
    ]).value.replace(/>\s+</g, '><');
    expect(out).toMatch(/<line class="baseline"/);
    // y: the busiest week; x: the first and the last week; no SVG text to shrink with the drawing.
    expect(out).toContain('<p class="chart-max" aria-hidden="true">1,200 per week at most</p>');
    expect(out).toMatch(
      /<p class="chart-weeks" aria-hidden="true"><span>2025-01-06<\/span><span>weeks starting<\/span><span>2025-01-13<\/span><\/p>/,
    );
    expect(out).not.toContain('<text');
    expect(out).toMatch(/<svg\s[^>]*aria-hidden="true"/);
    expect(out).toContain('<figcaption>1,201 downloads in the last 2 weeks, 1,200 this week</figcaption>');
    expect(out).toContain('<title>Week of 2025-01-06: 1 download</title>');
  });

  it('says so when nothing was counted', () => {
    expect(downloadChart([]).value).toContain('No downloads counted');
    expect(downloadChart([{ week: '2025-01-06', downloads: 0 }]).value).toContain('No downloads counted');
  });
});

describe('install snippet', () => {
  it('names the registry after its host and lists every scope once, sorted', () => {
    const snippet = installSnippet({
      baseUrl: 'https://acme.example.com',
      name: 'com.acme.b',
      version: '1.2.3',
      scopes: ['com.acme.z', 'com.acme.a', 'com.acme.b'],
      engines: [{ engine: 'unity' }],
      tarballFile: 'com.acme.b-1.2.3.tgz',
      needsToken: false,
    });
    expect(snippet.commands).toEqual([
      {
        engines: ['unity'],
        label: 'In a Unity project',
        command: 'pkg add com.acme.b@1.2.3 --registry https://acme.example.com',
      },
    ]);
    expect(snippet.npm).toBe('npm install com.acme.b@1.2.3 --registry https://acme.example.com');
    expect(snippet.tarball).toBeUndefined();
    expect(JSON.parse(snippet.unity!.manifest)).toEqual({
      scopedRegistries: [
        { name: 'acme.example.com', url: 'https://acme.example.com', scopes: ['com.acme.a', 'com.acme.b', 'com.acme.z'] },
      ],
      dependencies: { 'com.acme.b': '1.2.3' },
    });
  });

  it('gives one pkg add line for engines with the same command, the tarball to Godot and Unreal, the manifest only to Unity', () => {
    const godot = installSnippet({
      baseUrl: 'https://acme.example.com/',
      name: 'com.acme.g',
      version: '1.0.0',
      scopes: [],
      engines: [
        { engine: 'godot', min: '4.2' },
        { engine: 'unreal', min: '5.3' },
      ],
      tarballFile: 'com.acme.g-1.0.0.tgz',
      needsToken: false,
    });
    expect(godot.commands).toEqual([
      {
        engines: ['godot', 'unreal'],
        label: 'In a Godot 4 or Unreal Engine 5 project',
        command: 'pkg add com.acme.g@1.0.0 --registry https://acme.example.com/',
      },
    ]);
    expect(godot.unity).toBeUndefined();
    expect(godot.tarball).toEqual({
      url: 'https://acme.example.com/com.acme.g/-/com.acme.g-1.0.0.tgz',
      file: 'com.acme.g-1.0.0.tgz',
    });
  });
});

describe('log redaction', () => {
  it('hides the secrets of web-login URLs', () => {
    expect(redactUrl('/-/v1/login/done/abcDEF123_-')).toBe('/-/v1/login/done/[redacted]');
    expect(redactUrl('/-/web/login/abcDEF123_-?x=1')).toBe('/-/web/login/[redacted]?x=1');
    expect(redactUrl('/-/web/login-complete')).toBe('/-/web/login-complete');
  });
});
