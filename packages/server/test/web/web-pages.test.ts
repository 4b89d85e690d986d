import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loginUser, publishVersion, request, startRegistry, type TestRegistry } from '@pkg/testkit';
import { CONTENT_SECURITY_POLICY } from '../../src/web/security-headers.js';
import { seedPackage } from './seed.js';
import { WebClient, decodeEntities, squash, textOfId } from './web-client.js';

let registry: TestRegistry;
let web: WebClient;

beforeAll(async () => {
  registry = await startRegistry();
  web = new WebClient(registry.url);
  await seedPackage(registry, {
    name: 'com.acme.core',
    description: 'Core types',
    versions: [{ version: '1.0.0' }, { version: '1.1.0', fields: { dependencies: { 'com.acme.math': '2.0.0' } } }],
  });
  await seedPackage(registry, { name: 'com.acme.math', versions: [{ version: '2.0.0' }] });
  await seedPackage(registry, {
    name: 'com.acme.widgets',
    description: 'Widgets for game UIs',
    readme: '# Widgets\n\nSome **bold** text and a [link](https://example.com/docs).',
    maintainers: [
      { name: 'alice', email: 'alice@example.com' },
      { name: 'bob', email: 'bob@example.com' },
    ],
    versions: [
      { version: '0.9.0', published: '2024-02-01T10:00:00.000Z', fields: { deprecated: 'Use 1.x: 0.9 leaks memory' } },
      {
        version: '1.0.0',
        published: '2024-03-01T10:00:00.000Z',
        fields: {
          displayName: 'Acme Widgets',
          unity: '2021.3',
          unityRelease: '0f1',
          license: 'MIT',
          keywords: ['ui', 'widgets'],
          author: 'Alice Doe <alice@example.com>',
          repository: { type: 'git', url: 'git+https://github.com/acme/widgets.git' },
          dependencies: { 'com.acme.core': '1.1.0', 'com.unity.modules.ui': '1.0.0' },
        },
      },
      { version: '2.0.0-beta.1', published: '2024-04-01T10:00:00.000Z' },
    ],
    distTags: { latest: '1.0.0', beta: '2.0.0-beta.1' },
  });
});
afterAll(async () => {
  await registry.close();
});

describe('home page', () => {
  it('serves HTML to browsers at / with the search box and recently updated packages', async () => {
    const page = await web.get('/');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.html).toContain('<label for="home-q"');
    expect(page.html).toContain('action="/-/web/search"');
    const recent = page.html.slice(page.html.indexOf('id="recent-h"'), page.html.indexOf('id="popular-h"'));
    // Newest publish first: widgets (April), core, math.
    expect(recent.indexOf('Acme Widgets')).toBeGreaterThan(-1);
    expect(recent.indexOf('Acme Widgets')).toBeLessThan(recent.indexOf('com.acme.core'));
    expect(page.html).toContain('Most downloaded');
  });

  it('answers non-browser clients at / with the JSON 404 of the API', async () => {
    const res = await request(`${registry.url}/`, { headers: { accept: 'application/json' } });
    expect(res.status).toBe(404);
    expect(res.headers.get('vary')).toBe('Accept');
    expect(res.body).toMatchObject({ code: 'NOT_FOUND' });
  });

  it('sends a strict CSP and the other security headers on every page', async () => {
    for (const path of [
      '/',
      '/-/web/search?q=acme',
      '/-/web/package/com.acme.widgets',
      '/-/web/signin',
      '/-/web/package/com.acme.nope',
    ]) {
      const page = await web.get(path);
      expect(page.headers.get('content-security-policy'), path).toBe(CONTENT_SECURITY_POLICY);
      expect(page.headers.get('x-content-type-options'), path).toBe('nosniff');
      expect(page.headers.get('x-frame-options'), path).toBe('DENY');
      expect(page.headers.get('referrer-policy'), path).toBe('same-origin');
    }
    expect(CONTENT_SECURITY_POLICY).toContain("frame-ancestors 'none'");
    expect(CONTENT_SECURITY_POLICY).toContain("script-src 'self'");
    expect(CONTENT_SECURITY_POLICY).not.toContain('unsafe-inline');
    expect(CONTENT_SECURITY_POLICY).not.toContain('unsafe-eval');
  });
});

describe('assets', () => {
  it('serves the stylesheet and script under content-addressed names, cached for a year, compressed when asked', async () => {
    const page = await web.get('/-/web/package/com.acme.widgets');
    const scripts = [...page.html.matchAll(/<script src="([^"]+)"/g)].map((m) => m[1]!);
    const styles = [...page.html.matchAll(/<link rel="stylesheet" href="([^"]+)"/g)].map((m) => m[1]!);
    expect(scripts).toHaveLength(1);
    expect(styles).toHaveLength(1);
    let scriptBytes = 0;
    for (const path of scripts) {
      const res = await fetch(`${registry.url}${path}`, { headers: { 'accept-encoding': 'identity' } });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
      expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      scriptBytes += (await res.arrayBuffer()).byteLength;
    }
    // The budget is 100 KB of JavaScript on a package page.
    expect(scriptBytes).toBeLessThan(100 * 1024);
    const css = await fetch(`${registry.url}${styles[0]}`, { headers: { 'accept-encoding': 'gzip' } });
    expect(css.headers.get('content-type')).toBe('text/css; charset=utf-8');
    expect(css.headers.get('content-encoding')).toBe('gzip');
    expect(await css.text()).toContain('prefers-color-scheme: dark');
  });

  it('has no inline script or style anywhere (the CSP would block it)', async () => {
    for (const path of ['/', '/-/web/search?q=acme', '/-/web/package/com.acme.widgets', '/-/web/signin']) {
      const { html } = await web.get(path);
      expect(html, path).not.toMatch(/<script(?![^>]*\ssrc=)[^>]*>/);
      expect(html, path).not.toMatch(/<style[\s>]/);
      expect(html, path).not.toMatch(/\sstyle="/);
    }
  });

  it('answers 404 for unknown asset names', async () => {
    const res = await fetch(`${registry.url}/-/web/assets/style.css`);
    expect(res.status).toBe(404);
  });
});

describe('package page', () => {
  it('shows what the issue lists: names, description, versions with dates, tags, deprecation, dependencies, Unity, license, maintainers', async () => {
    const page = await web.get('/-/web/package/com.acme.widgets');
    expect(page.status).toBe(200);
    const html = squash(page.html);
    expect(html).toContain('<h1><bdi>Acme Widgets</bdi></h1>');
    expect(html).toContain('<code>com.acme.widgets</code>');
    expect(html).toContain('Widgets for game UIs');
    expect(html).toContain('<dt>Unity</dt><dd>2021.3.0f1 or newer</dd>');
    expect(html).toContain('<dt>License</dt><dd><bdi>MIT</bdi></dd>');
    expect(html).toContain('<dt>Maintainers</dt><dd><bdi>alice</bdi>,<bdi>bob</bdi></dd>');
    expect(html).toContain('<dt>Author</dt><dd><bdi>Alice Doe</bdi></dd>');
    expect(html).toContain('href="https://github.com/acme/widgets"');
    // versions newest first, with dates and tags
    const versions = html.slice(html.indexOf('id="versions-h"'));
    expect(versions).toContain('Versions (3)');
    expect(versions.indexOf('2.0.0-beta.1')).toBeLessThan(versions.indexOf('1.0.0'));
    expect(versions.indexOf('1.0.0')).toBeLessThan(versions.indexOf('0.9.0'));
    // relative times, the exact one on hover
    expect(versions).toMatch(
      /<time datetime="2024-03-01T10:00:00.000Z" title="2024-03-01 10:00 UTC">\d+ (years|months) ago<\/time>/,
    );
    expect(versions).toMatch(/0\.9\.0<\/a><span class="tag">deprecated<\/span>/);
    // dist-tags
    expect(html).toMatch(/<td>beta<\/td><td><a href="\/-\/web\/package\/com\.acme\.widgets\?version=2\.0\.0-beta\.1">/);
    // dependencies: hosted ones linked, others plain
    expect(html).toContain('<a href="/-/web/package/com.acme.core">com.acme.core</a>');
    expect(html).toContain('<span>com.unity.modules.ui</span>');
    expect(html).not.toContain('href="/-/web/package/com.unity.modules.ui"');
    // readme rendered
    expect(html).toContain('<strong>bold</strong>');
    expect(html).toContain('<a href="https://example.com/docs" rel="nofollow ugc noopener noreferrer">link</a>');
    expect(html).toContain('<h2>Widgets</h2>');
  });

  it('names the product in the header, beside the host', async () => {
    const html = squash((await web.get('/')).html);
    expect(html).toContain(`<a class="brand" href="/">pkg-registry<span class="site">${new URL(registry.url).host}</span></a>`);
  });

  it('offers `pkg add` and a manifest snippet with every scope the package needs from this registry', async () => {
    const html = squash((await web.get('/-/web/package/com.acme.widgets')).html);
    const manifest = JSON.parse(textOfId(html, 'install-manifest')!);
    // Both name the same version.
    // This registry is not pkg's default one: the line names it.
    expect(textOfId(html, 'install-command')).toBe(
      `pkg add com.acme.widgets@${manifest.dependencies['com.acme.widgets']} --registry ${registry.url}`,
    );
    expect(manifest).toEqual({
      scopedRegistries: [
        {
          name: new URL(registry.url).hostname,
          url: registry.url,
          // the package, its hosted dependency and that one's hosted dependency; not Unity's built-ins
          scopes: ['com.acme.core', 'com.acme.math', 'com.acme.widgets'],
        },
      ],
      dependencies: { 'com.acme.widgets': '1.0.0' },
    });
    // Each Copy button says what it copies.
    expect(html).toMatch(
      /<button type="button"[^>]*data-copy="install-command"[^>]*hidden><span class="copy-text">Copy<\/span><span class="visually-hidden"> ?the pkg command<\/span><\/button>/,
    );
    expect(html).toMatch(
      /<button type="button"[^>]*data-copy="install-manifest"[^>]*hidden><span class="copy-text">Copy<\/span><span class="visually-hidden"> ?the manifest snippet<\/span><\/button>/,
    );
  });

  it('shows an older version with its deprecation notice and a link to latest', async () => {
    const page = await web.get('/-/web/package/com.acme.widgets?version=0.9.0');
    const { status } = page;
    const html = squash(page.html);
    expect(status).toBe(200);
    expect(html).toContain('<strong>Deprecated.</strong><bdi>Use 1.x: 0.9 leaks memory</bdi>');
    expect(html).toContain('latest is 1.0.0');
    expect(JSON.parse(textOfId(html, 'install-manifest')!).dependencies).toEqual({ 'com.acme.widgets': '0.9.0' });
  });

  it.each([
    ['/-/web/package/com.acme.nope', 404, 'There is no package named com.acme.nope here'],
    ['/-/web/package/com.acme.widgets?version=9.9.9', 404, 'com.acme.widgets has no version 9.9.9'],
    ['/-/web/package/com.acme.widgets?version=latest%3Cb%3E', 400, 'is not a version'],
    ['/-/web/package/Not_A.Name', 422, 'must be lowercase'],
    ['/-/web/package/..%2F..%2Fetc%2Fpasswd', 422, 'scoped names are not supported'],
    ['/-/web/nothing-here', 404, 'There is no such page'],
    ['/-/web/package/com.acme.widgets/extra', 404, 'There is no such page'],
  ])('answers %s with a %i HTML page', async (path, status, message) => {
    const page = await web.get(path);
    expect(page.status).toBe(status);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(decodeEntities(page.html)).toContain(message);
    expect(page.html).not.toContain('<b>');
  });
});

describe('downloads', () => {
  it('lists the most downloaded packages on the home page and charts them by week', async () => {
    const token = await loginUser(registry.url, 'publisher', 'pw-publisher');
    for (const name of ['com.dl.popular', 'com.dl.quiet']) {
      expect((await publishVersion(registry.url, token, name, '1.0.0')).status).toBe(201);
    }
    const fetchTarball = async (name: string) => {
      const res = await fetch(`${registry.url}/${name}/-/${name}-1.0.0.tgz`);
      expect(res.status).toBe(200);
      await res.arrayBuffer();
    };
    for (let i = 0; i < 3; i++) await fetchTarball('com.dl.popular');
    await fetchTarball('com.dl.quiet');
    await registry.services.downloads.flush();

    const home = squash((await web.get('/')).html);
    const popular = home.slice(home.indexOf('id="popular-h"'));
    expect(popular.indexOf('com.dl.popular')).toBeGreaterThan(-1);
    expect(popular.indexOf('com.dl.popular')).toBeLessThan(popular.indexOf('com.dl.quiet'));
    // never downloaded: not among the most downloaded
    expect(popular).not.toContain('com.acme.math');
    // The list is by the last 30 days, and says so for each entry.
    expect(popular).toContain('3 downloads in 30 days');
    const recent = home.slice(home.indexOf('id="recent-h"'), home.indexOf('id="popular-h"'));
    expect(recent).toContain('3 downloads in 7 days');

    const page = squash((await web.get('/-/web/package/com.dl.popular')).html);
    const chart = page.slice(page.indexOf('id="downloads-h"'), page.indexOf('id="deps-h"'));
    expect(chart.match(/<rect /g)).toHaveLength(12);
    expect(chart).toContain('3 downloads in the last 12 weeks, 3 this week');
    expect(chart).not.toMatch(/<script|style=/);
  });
});

describe('search results page', () => {
  beforeAll(async () => {
    for (let i = 1; i <= 25; i++) {
      const n = String(i).padStart(2, '0');
      await seedPackage(registry, {
        name: `org.tools.tool${n}`,
        description: `Tool number ${n}`,
        versions: [
          { version: '1.0.0', published: new Date(Date.UTC(2023, 0, i)).toISOString(), fields: { keywords: ['toolbox'] } },
        ],
      });
    }
  });

  it('pages through results 20 at a time with previous and next links', async () => {
    const first = await web.get('/-/web/search?q=toolbox');
    expect(first.status).toBe(200);
    first.html = squash(first.html);
    expect(first.html).toContain('25 packages, showing 1–20.');
    expect(first.html.match(/<li><a class="name"/g)).toHaveLength(20);
    expect(first.html).toContain('<a rel="next" href="/-/web/search?q=toolbox&amp;page=2">');
    expect(first.html).not.toContain('rel="prev"');
    const second = await web.get('/-/web/search?q=toolbox&page=2');
    second.html = squash(second.html);
    expect(second.html).toContain('25 packages, showing 21–25.');
    expect(second.html.match(/<li><a class="name"/g)).toHaveLength(5);
    expect(second.html).toContain('<a rel="prev" href="/-/web/search?q=toolbox">');
    expect(second.html).not.toContain('rel="next"');
    const names = [
      ...first.html.matchAll(/class="name" href="\/-\/web\/package\/([^"]+)"/g),
      ...second.html.matchAll(/class="name" href="\/-\/web\/package\/([^"]+)"/g),
    ].map((m) => m[1]);
    expect(new Set(names).size).toBe(25);
  });

  it('finds packages by part of a name, description or keyword and keeps the query in the box', async () => {
    const byName = await web.get('/-/web/search?q=widg');
    expect(byName.html).toContain('href="/-/web/package/com.acme.widgets"');
    expect(byName.html).toContain('value="widg"');
    const byDescription = await web.get('/-/web/search?q=game%20uis');
    expect(byDescription.html).toContain('href="/-/web/package/com.acme.widgets"');
    const none = await web.get('/-/web/search?q=zzzz-nothing');
    expect(none.status).toBe(200);
    expect(none.html).toContain('No packages found.');
  });

  it.each([
    ['page=0', 'page number'],
    ['page=-1', 'page number'],
    ['page=abc', 'page number'],
    ['page=5001', 'page number'],
    ['q=a&q=b', 'given once'],
    [`q=${'x'.repeat(300)}`, 'longer than 256'],
  ])('rejects %s with a 400 page', async (query, message) => {
    const page = await web.get(`/-/web/search?${query}`);
    expect(page.status).toBe(400);
    expect(page.html).toContain(message);
  });
});

describe('hostile package content stays inert', () => {
  const evil = '<script>alert(1)</script><img src=x onerror=alert(2)>"\'><svg onload=alert(3)>';

  beforeAll(async () => {
    await seedPackage(registry, {
      name: 'com.evil.xss',
      description: evil,
      readme: [
        '# Readme <script>alert(4)</script>',
        '<img src="x" onerror="alert(5)">',
        '<a href="javascript:alert(6)">html link</a>',
        '[md link](javascript:alert(7)) [data link](data:text/html;base64,PHNjcmlwdD4=) [vb](vbscript:msgbox)',
        '[ok](https://example.com) [rel](./Documentation~/guide.md) ![img](https://example.com/a.png)',
        '<iframe src="https://evil.example"></iframe> <style>body{display:none}</style>',
      ].join('\n\n'),
      maintainers: [{ name: evil, email: 'x@example.com' }],
      versions: [
        {
          version: '1.0.0',
          fields: {
            displayName: evil,
            keywords: [evil, 'javascript:alert(8)'],
            license: evil,
            author: { name: evil },
            homepage: 'javascript:alert(9)',
            repository: 'javascript:alert(10)',
            dependencies: { [evil]: evil },
          },
        },
      ],
    });
  });

  it('escapes every field and renders the readme without markup from the author', async () => {
    const page = await web.get('/-/web/package/com.evil.xss');
    expect(page.status).toBe(200);
    const html = page.html;
    // only our own script tag; no element the author wrote
    expect(html.match(/<script/g)).toHaveLength(1);
    expect(html).not.toMatch(/<(img|svg|iframe|style)\b[^>]*(onerror|onload|src="x"|evil\.example)/i);
    expect(html).not.toMatch(/<iframe|<style/i);
    expect(html).not.toMatch(/<[^>]+\son[a-z]+\s*=/i);
    expect(html).not.toMatch(/href="\s*(javascript|vbscript|data):/i);
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    // the harmless parts of the readme still work
    expect(html).toContain('<a href="https://example.com" rel="nofollow ugc noopener noreferrer">ok</a>');
    // No repository to resolve it against: the relative link stays text, never a link to this registry.
    expect(html).toContain('<a rel="nofollow ugc noopener noreferrer">rel</a>');
    expect(html).toMatch(/<img alt="img" src="https:\/\/example\.com\/a\.png" loading="lazy" referrerpolicy="no-referrer" \/?>/);
  });

  it('escapes hostile text in search results and keyword links', async () => {
    const page = await web.get('/-/web/search?q=alert');
    expect(page.html).toContain('href="/-/web/package/com.evil.xss"');
    expect(page.html).not.toContain('<script');
    expect(page.html).not.toMatch(/<[^>]+\son[a-z]+\s*=/i);
    expect(page.html).not.toMatch(/href="\s*javascript:/i);
  });

  it('escapes the search text itself', async () => {
    const page = await web.get(`/-/web/search?q=${encodeURIComponent('"><script>alert(11)</script>')}`);
    expect(page.status).toBe(200);
    expect(page.html).toContain('value="&quot;&gt;&lt;script&gt;alert(11)&lt;/script&gt;"');
    expect(page.html).not.toContain('<script>alert(11)');
  });
});

describe('a registry that requires a token for reads', () => {
  let closed: TestRegistry;

  beforeAll(async () => {
    closed = await startRegistry({ settings: { readAccess: 'token' } });
    await seedPackage(closed, { name: 'com.secret.thing', versions: [{ version: '1.0.0' }] });
    await loginUser(closed.url, 'carol', 'pw-carol');
  });
  afterAll(async () => {
    await closed.close();
  });

  it('shows its packages only to signed-in users', async () => {
    const client = new WebClient(closed.url);
    for (const path of ['/', '/-/web/search?q=secret', '/-/web/package/com.secret.thing']) {
      const page = await client.get(path);
      expect(page.status, path).toBe(303);
      expect(page.headers.get('location')).toBe(`/-/web/signin?next=${encodeURIComponent(path)}`);
      expect(page.html).not.toContain('com.secret.thing');
    }
    await client.get('/-/web/signin');
    const signIn = await client.post('/-/web/signin', {
      csrf: client.csrf(),
      name: 'carol',
      password: 'pw-carol',
      next: '/-/web/package/com.secret.thing',
    });
    expect(signIn.status).toBe(303);
    expect(signIn.headers.get('location')).toBe('/-/web/package/com.secret.thing');
    const page = await client.get('/-/web/package/com.secret.thing');
    expect(page.status).toBe(200);
    expect(page.html).toContain('<h1><bdi>com.secret.thing</bdi></h1>');
  });
});
