import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loginUser, publishVersion, startRegistry, type TestRegistry } from '@pkg/testkit';
import { DEFAULT_REGISTRY } from '@pkg/cli';
import { CLIENT_DEFAULT_REGISTRY, installSnippet } from '../../src/web/install-snippet.js';
import { seedPackage } from './seed.js';
import { WebClient, decodeEntities, squash, textOfId } from './web-client.js';

let registry: TestRegistry;
let web: WebClient;

const README = [
  '# Dialogue',
  '',
  '<p align="center"><img src="docs/logo.png" alt="Logo" width="120"></p>',
  '',
  '<details><summary>Why?</summary>',
  '',
  'Because <kbd>Ctrl</kbd>+<kbd>S</kbd> and H<sub>2</sub>O and x<sup>2</sup>.',
  '',
  '</details>',
  '',
  'See the [changelog](CHANGELOG.md), the [guide](./Documentation~/guide.md#setup), [up](../../../escape.md) and [the top](#dialogue).',
  '',
  '```csharp',
  'public class Speaker : MonoBehaviour { string line = "hi"; }',
  '```',
  '',
  '```gdscript',
  'func _ready():',
  '    print("hello")',
  '```',
  '',
  '| Option | Meaning | A long last column that must not be crushed |',
  '|:--|--:|:-:|',
  '| a | b | c |',
].join('\n');

beforeAll(async () => {
  registry = await startRegistry();
  web = new WebClient(registry.url);
  await seedPackage(registry, {
    name: 'com.studio.dialogue',
    readme: README,
    versions: [
      { version: '1.0.0', fields: { unity: '2021.3' } },
      {
        version: '2.0.0',
        published: new Date(Date.now() - 3 * 86_400_000).toISOString(),
        fields: {
          unity: '2022.3',
          godot: '4.2',
          unreal: '5.3',
          repository: { type: 'git', url: 'git+https://github.com/studio/mono.git', directory: 'packages/dialogue' },
          bugs: { url: 'https://github.com/studio/mono/issues' },
          dist: {
            tarball: 'http://elsewhere.example/com.studio.dialogue/-/com.studio.dialogue-2.0.0.tgz',
            integrity: 'sha512-AAAA',
            shasum: '0000000000000000000000000000000000000000',
            unpackedSize: 123_456,
            fileCount: 42,
            signatures: [{ keyid: 'SHA256:abc', sig: 'MEUCIQ' }],
            attestations: { url: 'https://example.com/att', provenance: { predicateType: 'https://slsa.dev/provenance/v1' } },
          },
        },
      },
    ],
  });
  await seedPackage(registry, {
    name: 'com.studio.quests',
    versions: [{ version: '1.0.0', fields: { dependencies: { 'com.studio.dialogue': '^2.0.0' } } }],
  });
  await seedPackage(registry, {
    name: 'com.studio.barks',
    versions: [{ version: '1.0.0', fields: { godot: '4.1', dependencies: { 'com.studio.dialogue': '2.0.0' } } }],
  });
  await seedPackage(registry, {
    name: 'com.studio.noreadme',
    description: 'A package published without a README',
    readme: 'ERROR: No README data found!',
    versions: [{ version: '0.1.0', fields: { godot: '4.2', deprecated: 'Use com.studio.dialogue' } }],
  });
});
afterAll(async () => {
  await registry.close();
});

describe('install instructions', () => {
  it('names this registry in the pkg line, once for all three engines, and says how to get pkg', async () => {
    const html = squash((await web.get('/-/web/package/com.studio.dialogue')).html);
    expect(textOfId(html, 'install-command')).toBe(`pkg add com.studio.dialogue@2.0.0 --registry ${registry.url}`);
    expect(html).not.toContain('id="install-command-2"');
    expect(html).toContain('With pkg, in a Unity, Godot 4 or Unreal Engine 5 project');
    expect(decodeEntities(html)).toContain('npm install -g pkg-registry-client-<version>.tgz');
  });

  it('gives the npm line, the Package Manager window steps and the manifest, and the tarball for Godot and Unreal', async () => {
    const html = squash((await web.get('/-/web/package/com.studio.dialogue')).html);
    expect(textOfId(html, 'install-npm')).toBe(`npm install com.studio.dialogue@2.0.0 --registry ${registry.url}`);
    const steps = decodeEntities(
      html.slice(html.indexOf('id="install-upm-h"'), html.indexOf('id="install-manifest-h"')).replace(/<[^>]+>/g, ' '),
    );
    expect(steps).toContain('Edit › Project Settings › Package Manager');
    expect(steps).toContain(`URL ${registry.url}`);
    expect(steps).toMatch(/Name com\.studio\.dialogue\s*, Version 2\.0\.0/);
    expect(JSON.parse(textOfId(html, 'install-manifest')!).dependencies).toEqual({ 'com.studio.dialogue': '2.0.0' });
    // The tarball comes from this registry, whatever URL the stored record had.
    const tarball = `${registry.url}/com.studio.dialogue/-/com.studio.dialogue-2.0.0.tgz`;
    expect(html).toContain(`<a href="${tarball}" download>com.studio.dialogue-2.0.0.tgz</a>: the package's files`);
    // Distinct names for the three Copy buttons.
    const names = [...html.matchAll(/<span class="visually-hidden"> ?the ([^<]+)<\/span><\/button>/g)].map((m) => m[1]);
    expect(names).toEqual(['pkg command', 'manifest snippet', 'npm command']);
  });

  it('leaves the registry out of the line for pkg’s default registry, and asks for a login where reads need a token', () => {
    expect(CLIENT_DEFAULT_REGISTRY).toBe(DEFAULT_REGISTRY);
    const plain = installSnippet({
      baseUrl: DEFAULT_REGISTRY,
      name: 'com.a.b',
      version: '1.0.0',
      scopes: [],
      engines: [{ engine: 'godot', min: '4.2' }],
      tarballFile: 'com.a.b-1.0.0.tgz',
      needsToken: false,
    });
    expect(plain.commands).toEqual([{ engines: ['godot'], label: 'In a Godot 4 project', command: 'pkg add com.a.b@1.0.0' }]);
    expect(plain.unity).toBeUndefined();
    expect(plain.login).toBeUndefined();
    expect(plain.tarball).toEqual({ url: `${DEFAULT_REGISTRY}/com.a.b/-/com.a.b-1.0.0.tgz`, file: 'com.a.b-1.0.0.tgz' });
    const closed = installSnippet({ ...plainInput(), baseUrl: 'https://acme.registry.example', needsToken: true });
    expect(closed.login).toBe('pkg login --registry https://acme.registry.example');
    expect(closed.commands[0]!.command).toBe('pkg add com.a.b@1.0.0 --registry https://acme.registry.example');
  });
});

function plainInput() {
  return {
    baseUrl: DEFAULT_REGISTRY,
    name: 'com.a.b',
    version: '1.0.0',
    scopes: [],
    engines: [{ engine: 'unity' as const }],
    tarballFile: 'com.a.b-1.0.0.tgz',
    needsToken: false,
  };
}

describe('readmes', () => {
  it('renders GitHub’s HTML subset: details, alignment, images, kbd, sub and sup', async () => {
    const html = squash((await web.get('/-/web/package/com.studio.dialogue')).html);
    expect(html).toContain('<details><summary>Why?</summary>');
    expect(html).toContain('<p align="center">');
    expect(html).toContain('<kbd>Ctrl</kbd>+<kbd>S</kbd>');
    expect(html).toContain('H<sub>2</sub>O');
    expect(html).toContain('x<sup>2</sup>');
  });

  it('resolves relative links and images against the package’s folder in its repository', async () => {
    const html = squash((await web.get('/-/web/package/com.studio.dialogue')).html);
    const base = 'https://github.com/studio/mono';
    expect(html).toMatch(
      new RegExp(
        `<img alt="Logo" width="120" src="${base}/raw/HEAD/packages/dialogue/docs/logo\\.png" loading="lazy" referrerpolicy="no-referrer" ?/?>`,
      ),
    );
    expect(html).toContain(
      `<a href="${base}/blob/HEAD/packages/dialogue/CHANGELOG.md" rel="nofollow ugc noopener noreferrer">changelog</a>`,
    );
    expect(html).toContain(
      `<a href="${base}/blob/HEAD/packages/dialogue/Documentation~/guide.md#setup" rel="nofollow ugc noopener noreferrer">guide</a>`,
    );
    // A path out of the repository is not a link; an in-page anchor stays one.
    expect(html).toContain('<a rel="nofollow ugc noopener noreferrer">up</a>');
    expect(html).toContain('<a href="#dialogue" rel="nofollow ugc noopener noreferrer">the top</a>');
    // Nothing points back at this registry's own paths.
    expect(html).not.toMatch(/href="(\.\/)?(CHANGELOG|Documentation)/);
  });

  it('highlights code on the server, in focusable, labelled scroll regions, as are tables', async () => {
    const html = squash((await web.get('/-/web/package/com.studio.dialogue')).html);
    expect(html).toContain(
      '<div class="scroll" role="region" tabindex="0" aria-label="Code example 1 (C#)"><pre><code class="language-csharp">',
    );
    expect(html).toMatch(/<span class="hljs-keyword">public<\/span>/);
    expect(html).toContain('<span class="hljs-string">"hi"</span>');
    // GDScript reads in Python's colours.
    expect(html).toContain('aria-label="Code example 2 (Python)"><pre><code class="language-gdscript">func _ready():');
    expect(html).toContain('<span class="hljs-built_in">print</span>(<span class="hljs-string">"hello"</span>)');
    expect(html).toContain('<div class="scroll" role="region" tabindex="0" aria-label="Table 1"><table>');
    // Column alignment without a style attribute (the CSP allows none).
    expect(html).toContain('<th align="left">Option</th><th align="right">Meaning</th><th align="center">');
    expect(html).not.toMatch(/\sstyle="/);
  });

  it('says whose readme an older version shows', async () => {
    const latest = squash((await web.get('/-/web/package/com.studio.dialogue')).html);
    expect(latest).not.toContain('This registry keeps one readme per package');
    const older = decodeEntities(squash((await web.get('/-/web/package/com.studio.dialogue?version=1.0.0')).html));
    expect(older).toContain('This registry keeps one readme per package: this one came with the latest release,');
    expect(older).toContain('Version 1.0.0 may have had another.');
  });

  it('shows a real placeholder instead of npm’s “No README data found”', async () => {
    const page = await web.get('/-/web/package/com.studio.noreadme');
    expect(page.html).not.toContain('No README data found');
    const html = squash(page.html);
    expect(html).toContain('<strong>No readme.</strong>The author of com.studio.noreadme published it without a README file.');
    expect(html).toContain('<p dir="auto">A package published without a README</p>');
  });
});

describe('facts', () => {
  it('lists dependents in this registry, sizes, the tarball and issues links, weekly downloads and supply-chain marks', async () => {
    const html = squash((await web.get('/-/web/package/com.studio.dialogue')).html);
    const dependents = html.slice(html.indexOf('id="dependents-h"'), html.indexOf('id="tags-h"'));
    expect(dependents).toContain('Dependents (2)');
    expect(dependents).toContain('<a href="/-/web/package/com.studio.barks">com.studio.barks</a>');
    expect(dependents).toContain('<a href="/-/web/package/com.studio.quests">com.studio.quests</a>');
    expect(html).toContain('<dt>Unpacked size</dt><dd>123 kB</dd>');
    expect(html).toContain('<dt>Files</dt><dd>42</dd>');
    expect(html).toContain('<dt>Weekly downloads</dt><dd>0</dd>');
    expect(html).toContain(
      `<dt>Tarball</dt><dd><a href="${registry.url}/com.studio.dialogue/-/com.studio.dialogue-2.0.0.tgz" download>com.studio.dialogue-2.0.0.tgz</a></dd>`,
    );
    expect(html).toContain(
      '<dt>Issues</dt><dd><a href="https://github.com/studio/mono/issues" rel="nofollow ugc noopener noreferrer">github.com/studio/mono/issues</a></dd>',
    );
    expect(html).toContain('<li class="mark ok-mark">Signed by this registry</li>');
    expect(html).toContain('<li class="mark ok-mark">Built with provenance</li>');
    // published three days ago, the exact time on hover
    expect(html).toMatch(/published<time datetime="[^"]+" title="\d{4}-\d\d-\d\d \d\d:\d\d UTC">3 days ago<\/time>/);
    // a package nobody depends on says so; one without marks shows none
    const quests = squash((await web.get('/-/web/package/com.studio.quests')).html);
    expect(quests).toContain('No package in this registry depends on it.');
    expect(quests).not.toContain('class="marks"');
  });

  it('counts downloads this week', async () => {
    const token = await loginUser(registry.url, 'pub', 'pw-pub');
    expect((await publishVersion(registry.url, token, 'com.studio.fetched', '1.0.0')).status).toBe(201);
    for (let i = 0; i < 2; i++) {
      const res = await fetch(`${registry.url}/com.studio.fetched/-/com.studio.fetched-1.0.0.tgz`);
      await res.arrayBuffer();
    }
    await registry.services.downloads.flush();
    const html = squash((await web.get('/-/web/package/com.studio.fetched')).html);
    expect(html).toContain('<dt>Weekly downloads</dt><dd>2</dd>');
  });
});

describe('titles', () => {
  it('gives each version and each missing page a title of its own', async () => {
    const titleOf = async (path: string) => /<title>([^<]*)<\/title>/.exec((await web.get(path)).html)?.[1];
    const host = new URL(registry.url).host;
    expect(await titleOf('/-/web/package/com.studio.dialogue')).toBe(`com.studio.dialogue 2.0.0 · ${host}`);
    expect(await titleOf('/-/web/package/com.studio.dialogue?version=1.0.0')).toBe(`com.studio.dialogue 1.0.0 · ${host}`);
    expect(await titleOf('/-/web/package/com.studio.none')).toBe(
      `Not found: There is no package named com.studio.none here · ${host}`,
    );
    expect(await titleOf('/-/web/package/com.studio.dialogue?version=9.0.0')).toBe(
      `Not found: com.studio.dialogue has no version 9.0.0 · ${host}`,
    );
  });
});

describe('search', () => {
  it('marks deprecated packages and filters by engine, a package naming no engine counting as Unity’s', async () => {
    const all = squash((await web.get('/-/web/search?q=com.studio')).html);
    expect(all).toMatch(
      /com\.studio\.noreadme<\/bdi><\/a><span class="meta">0\.1\.0<\/span><span class="tag deprecated-tag" title="Use com\.studio\.dialogue">deprecated<\/span>/,
    );
    const names = (html: string) => [...html.matchAll(/class="name" href="\/-\/web\/package\/([^"]+)"/g)].map((m) => m[1]).sort();
    const godot = squash((await web.get('/-/web/search?q=engine%3Agodot')).html);
    expect(names(godot)).toEqual(['com.studio.barks', 'com.studio.dialogue', 'com.studio.noreadme']);
    const unity = squash((await web.get('/-/web/search?q=studio+engine%3Aunity')).html);
    expect(names(unity)).toEqual(['com.studio.dialogue', 'com.studio.fetched', 'com.studio.quests']);
    const unreal = squash((await web.get('/-/web/search?q=engine%3Aunreal')).html);
    expect(names(unreal)).toEqual(['com.studio.dialogue']);
    // The filter links keep the words and mark the engine in effect.
    expect(unity).toContain('<a href="/-/web/search?q=studio%20engine%3Agodot">Godot</a>');
    expect(unity).toContain('<a href="/-/web/search?q=studio%20engine%3Aunity" aria-current="page">Unity</a>');
    expect(unity).toContain('<a href="/-/web/search?q=studio">Any engine</a>');
    // Each engine named in a result links to its filter.
    expect(godot).toContain('<a href="/-/web/search?q=engine%3Agodot">Godot 4.1+</a>');
  });

  it('answers an unknown engine with a 400 page that names the known ones', async () => {
    const page = await web.get('/-/web/search?q=engine%3Acryengine');
    expect(page.status).toBe(400);
    expect(decodeEntities(page.html)).toContain("Unknown engine 'engine:cryengine'; known: unity, godot, unreal");
  });

  it('the API finds them too', async () => {
    const res = await fetch(`${registry.url}/-/v1/search?text=engine:godot&size=50`);
    const body = (await res.json()) as { total: number; objects: { package: { name: string } }[] };
    expect(body.total).toBe(3);
  });
});

describe('sign-in errors', () => {
  it('marks the fields invalid, describes them with the error and puts the focus on the first', async () => {
    const client = new WebClient(registry.url);
    await client.get('/-/web/signin');
    const page = await client.post('/-/web/signin', { csrf: client.csrf(), name: 'nobody', password: 'wrong' });
    const html = squash(page.html);
    expect(html).toContain('<title>Sign-in failed');
    expect(html).toMatch(/<div id="signin-error" class="error" role="alert">[^<]+<\/div>/);
    expect(html).toMatch(/<input id="name"[^>]* aria-invalid="true" aria-describedby="signin-error" autofocus\s*\/>/);
    expect(html).toMatch(/<input id="password"[^>]* aria-invalid="true" aria-describedby="signin-error"\s*\/>/);
    const fresh = squash((await client.get('/-/web/signin')).html);
    expect(fresh).not.toContain('aria-invalid');
  });
});
