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
  it('shows raw HTML as text', () => {
    const out = render('<script>alert(1)</script>\n\n<img src=x onerror=alert(1)>\n\n<div onclick="x()">hi</div>');
    expect(out).not.toMatch(/<(script|img|div)/);
    expect(out).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
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

  it('keeps http(s), mailto, relative links and inline raster images; links are nofollow', () => {
    const out = render(
      '[a](https://x.io) [b](mailto:a@x.io) [c](./docs/guide.md) [d](#usage) ![e](data:image/png;base64,iVBORw0KGgo=)',
    );
    expect(out).toContain('<a href="https://x.io" rel="nofollow ugc noopener noreferrer">a</a>');
    expect(out).toContain('href="mailto:a@x.io"');
    expect(out).toContain('href="./docs/guide.md"');
    expect(out).toContain('href="#usage"');
    expect(out).toContain('src="data:image/png;base64,iVBORw0KGgo="');
  });

  it('starts headings at h2 (the page title is the h1) and renders GFM tables and code', () => {
    const out = render('# Title\n\n## Sub\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n```cs\nvar x = "<T>";\n```');
    expect(out).toContain('<h2>Title</h2>');
    expect(out).toContain('<h3>Sub</h3>');
    expect(out).toContain('<table>');
    expect(out).toContain('<code class="language-cs">var x = &quot;&lt;T&gt;&quot;;');
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

  it('draws a baseline under the bars and labels both axes', () => {
    const out = downloadChart([
      { week: '2025-01-06', downloads: 1 },
      { week: '2025-01-13', downloads: 1200 },
    ]).value;
    expect(out).toMatch(/<line class="baseline"/);
    // y: 0 and the busiest week, and what is counted; x: the first and the last week.
    expect(out).toMatch(/<text class="tick"[^>]*>1,200<\/text>/);
    expect(out).toMatch(/<text class="tick"[^>]*>0<\/text>/);
    expect(out).toMatch(/<text class="axis-label"[^>]*>per week<\/text>/);
    expect(out).toMatch(/<text class="tick"[^>]*>2025-01-06<\/text>/);
    expect(out).toMatch(/<text class="tick"[^>]*>2025-01-13<\/text>/);
    expect(out).toMatch(/<text class="axis-label"[^>]*>week starting<\/text>/);
    expect(out).toContain('<title>Week of 2025-01-06: 1 download</title>');
  });

  it('says so when nothing was counted', () => {
    expect(downloadChart([]).value).toContain('No downloads counted');
    expect(downloadChart([{ week: '2025-01-06', downloads: 0 }]).value).toContain('No downloads counted');
  });
});

describe('install snippet', () => {
  it('names the registry after its host and lists every scope once, sorted', () => {
    const snippet = installSnippet('https://acme.example.com', 'com.acme.b', '1.2.3', ['com.acme.z', 'com.acme.a', 'com.acme.b']);
    expect(snippet.commands).toEqual([{ engine: 'unity', label: 'In a Unity project', command: 'pkg add com.acme.b@1.2.3' }]);
    expect(JSON.parse(snippet.manifest!)).toEqual({
      scopedRegistries: [
        { name: 'acme.example.com', url: 'https://acme.example.com', scopes: ['com.acme.a', 'com.acme.b', 'com.acme.z'] },
      ],
      dependencies: { 'com.acme.b': '1.2.3' },
    });
  });

  it('gives a pkg add line per engine, and the manifest snippet only to Unity packages', () => {
    const godot = installSnippet(
      'https://acme.example.com',
      'com.acme.g',
      '1.0.0',
      [],
      [
        { engine: 'godot', min: '4.2' },
        { engine: 'unreal', min: '5.3' },
      ],
    );
    expect(godot.commands.map((c) => [c.engine, c.label, c.command])).toEqual([
      ['godot', 'In a Godot 4 project', 'pkg add com.acme.g@1.0.0'],
      ['unreal', 'In an Unreal Engine 5 project', 'pkg add com.acme.g@1.0.0'],
    ]);
    expect(godot.manifest).toBeUndefined();
  });
});

describe('log redaction', () => {
  it('hides the secrets of web-login URLs', () => {
    expect(redactUrl('/-/v1/login/done/abcDEF123_-')).toBe('/-/v1/login/done/[redacted]');
    expect(redactUrl('/-/web/login/abcDEF123_-?x=1')).toBe('/-/web/login/[redacted]?x=1');
    expect(redactUrl('/-/web/login-complete')).toBe('/-/web/login-complete');
  });
});
