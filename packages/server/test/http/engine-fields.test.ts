import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loginUser, publishBody, publishVersion, request, startRegistry, storeSnapshot, type TestRegistry } from '@pkg/testkit';
import { WebClient, squash, textOfId } from '../web/web-client.js';

// The Godot and Unreal fields of a version: checked on publish, served to installers, shown by search and the web.
let registry: TestRegistry;
let alice: string;
let web: WebClient;
beforeAll(async () => {
  registry = await startRegistry();
  alice = await loginUser(registry.url, 'alice');
  web = new WebClient(registry.url);
});
afterAll(async () => {
  await registry.close();
});

const ABBREVIATED = 'application/vnd.npm.install-v1+json';

describe('publishing engine fields', () => {
  it('accepts godot/unreal minimums with optional maximums, several engines in one version, and serves them to installers', async () => {
    const name = 'com.acme.multi';
    const manifest = { unity: '2021.3', godot: '4.2', godotMax: '4.3', unreal: '5.3', unrealMax: '5.3' };
    expect((await publishVersion(registry.url, alice, name, '1.0.0', { manifest })).status).toBe(201);
    const full = await request(`${registry.url}/${name}`);
    expect(full.body.versions['1.0.0']).toMatchObject(manifest);
    const abbreviated = await request(`${registry.url}/${name}`, { headers: { accept: ABBREVIATED } });
    expect(abbreviated.body.versions['1.0.0']).toMatchObject(manifest);
  });

  it.each([
    ['godot without a minor', { godot: '4' }, `'godot' must be a minimum engine version of the form <major>.<minor>, e.g. 4.2`],
    ['godot with a patch', { godot: '4.2.1' }, `'godot' must be a minimum engine version of the form <major>.<minor>, e.g. 4.2`],
    ['godot as a number', { godot: 4.2 }, `'godot' must be a minimum engine version of the form <major>.<minor>, e.g. 4.2`],
    [
      'unreal with a leading zero',
      { unreal: '05.3' },
      `'unreal' must be a minimum engine version of the form <major>.<minor>, e.g. 5.3`,
    ],
    ['godotMax without godot', { godotMax: '4.3' }, `'godotMax' needs a 'godot' field`],
    [
      'unrealMax that is not a version',
      { unreal: '5.3', unrealMax: 'latest' },
      `'unrealMax' must be the newest supported version as <major>.<minor>, e.g. 5.3`,
    ],
    ['godotMax below godot', { godot: '4.3', godotMax: '4.2' }, `'godotMax' must not be below 'godot'`],
  ])('refuses %s with 422 and stores nothing', async (_label, fields, details) => {
    const name = 'com.acme.refused';
    const before = await storeSnapshot(registry, [name]);
    const res = await request(`${registry.url}/${name}`, {
      method: 'PUT',
      token: alice,
      body: publishBody(name, '1.0.0', { manifest: fields }).body,
    });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ error: expect.any(String), code: 'VALIDATION_ERROR', details });
    expect(await storeSnapshot(registry, [name])).toEqual(before);
  });
});

describe('engines in search and on the web', () => {
  beforeAll(async () => {
    const publish = (name: string, manifest: Record<string, unknown>) =>
      publishVersion(registry.url, alice, name, '1.0.0', { manifest: { keywords: ['enginefields'], ...manifest } });
    await publish('com.acme.godotonly', { godot: '4.2' });
    await publish('com.acme.unrealonly', { unreal: '5.3', unrealMax: '5.3' });
    await publish('com.acme.unityonly', { unity: '2022.3', unityRelease: '10f1' });
    await publish('com.acme.noengine', {});
    await publish('com.acme.both', { unity: '2021.3', godot: '4.1', godotMax: '4.3' });
  });

  it('lists the supported engines in each /-/v1/search object', async () => {
    const res = await request(`${registry.url}/-/v1/search?text=keywords:enginefields&size=20`);
    const engines = Object.fromEntries(
      res.body.objects.map((o: { package: { name: string; engines: unknown } }) => [o.package.name, o.package.engines]),
    );
    expect(engines).toEqual({
      'com.acme.godotonly': [{ engine: 'godot', min: '4.2' }],
      'com.acme.unrealonly': [{ engine: 'unreal', min: '5.3', max: '5.3' }],
      // Unity's entry names the package's Unity signature (none here).
      'com.acme.unityonly': [{ engine: 'unity', min: '2022.3.10f1', signature: null }],
      'com.acme.noengine': [{ engine: 'unity', signature: null }],
      'com.acme.both': [
        { engine: 'unity', min: '2021.3', signature: null },
        { engine: 'godot', min: '4.1', max: '4.3' },
      ],
    });
  });

  it('shows them in the web search results', async () => {
    const html = squash((await web.get('/-/web/search?q=keywords%3Aenginefields')).html);
    // Each engine links to a search for its packages.
    expect(html).toContain('<span class="meta engines"><a href="/-/web/search?q=engine%3Agodot">Godot 4.2+</a></span>');
    expect(html).toContain('<span class="meta engines"><a href="/-/web/search?q=engine%3Aunreal">Unreal Engine 5.3</a></span>');
    expect(html).toContain(
      '<span class="meta engines"><a href="/-/web/search?q=engine%3Aunity">Unity 2021.3+</a>·<a href="/-/web/search?q=engine%3Agodot">Godot 4.1–4.3</a></span>',
    );
  });

  it('shows a Godot package with its engine and pkg add line, and no Unity manifest snippet', async () => {
    const html = squash((await web.get('/-/web/package/com.acme.godotonly')).html);
    expect(html).toContain('<dt>Godot</dt><dd>4.2 or newer</dd>');
    expect(html).not.toContain('<dt>Unity</dt>');
    // One pkg line, labelled with its engine, naming this registry (not pkg's default one).
    expect(html).toContain('With pkg, in a Godot 4 project');
    expect(textOfId(html, 'install-command')).toBe(`pkg add com.acme.godotonly@1.0.0 --registry ${registry.url}`);
    expect(html).not.toContain('id="install-command-2"');
    expect(html).not.toContain('id="install-manifest"');
    expect(html).not.toContain('Packages/manifest.json');
  });

  it('shows an Unreal package limited to one minor', async () => {
    const html = squash((await web.get('/-/web/package/com.acme.unrealonly')).html);
    expect(html).toContain('<dt>Unreal Engine</dt><dd>5.3 only</dd>');
    expect(html).toContain('With pkg, in an Unreal Engine 5 project');
    expect(textOfId(html, 'install-command')).toBe(`pkg add com.acme.unrealonly@1.0.0 --registry ${registry.url}`);
    expect(html).not.toContain('id="install-manifest"');
  });

  it('shows a package for two engines with one pkg line labelled for both, and the Unity snippet', async () => {
    const html = squash((await web.get('/-/web/package/com.acme.both')).html);
    expect(html).toContain('<dt>Unity</dt><dd>2021.3 or newer</dd><dt>Godot</dt><dd>4.1 to 4.3</dd>');
    // The same command serves both engines: one line, its heading naming both.
    expect(html).toContain('With pkg, in a Unity or Godot 4 project');
    expect(textOfId(html, 'install-command')).toBe(`pkg add com.acme.both@1.0.0 --registry ${registry.url}`);
    expect(html).not.toContain('id="install-command-2"');
    expect(JSON.parse(textOfId(html, 'install-manifest')!).dependencies).toEqual({ 'com.acme.both': '1.0.0' });
  });

  it('keeps a package naming no engine as it was: Unity, any version, with the snippet', async () => {
    const html = squash((await web.get('/-/web/package/com.acme.noengine')).html);
    expect(html).toContain('<dt>Unity</dt><dd>any version</dd>');
    expect(html).toContain('With pkg');
    expect(textOfId(html, 'install-command')).toBe(`pkg add com.acme.noengine@1.0.0 --registry ${registry.url}`);
    expect(JSON.parse(textOfId(html, 'install-manifest')!).dependencies).toEqual({ 'com.acme.noengine': '1.0.0' });
  });
});
