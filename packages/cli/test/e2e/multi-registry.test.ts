import { mkdir, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loginUser, publishFixtures, startRegistry, tmpUnityProject, type FixtureVersion, type TestRegistry } from '@pkg/testkit';
import { makeHome, runPkg, type Home } from '../support/spawn.js';

// A Unity project whose manifest names two of our registries on different ports, a package of
// Unity's own registry and a built-in; the registry in effect (PKG_REGISTRY) is one nobody runs.
const ALPHA: Record<string, FixtureVersion[]> = {
  'com.alpha.app': [
    { version: '1.0.0', manifest: { dependencies: { 'com.alpha.core': '1.0.0' } } },
    { version: '1.1.0', manifest: { dependencies: { 'com.alpha.core': '1.1.0', 'com.alpha.log': '1.0.0' } } },
  ],
  'com.alpha.core': [{ version: '1.0.0' }, { version: '1.1.0' }],
  'com.alpha.log': [{ version: '1.0.0' }],
  'com.alpha.extra': [{ version: '1.0.0', manifest: { dependencies: { 'com.alpha.core': '1.0.0' } } }],
  // epsilon 1.1.0 needs a core that was never published.
  'com.example.epsilon': [
    { version: '1.0.0', manifest: { dependencies: { 'com.example.core': '1.0.0' } } },
    { version: '1.1.0', manifest: { dependencies: { 'com.example.core': '2.0.0' } } },
  ],
  'com.example.core': [{ version: '1.0.0' }, { version: '1.1.0' }],
};
const BETA: Record<string, FixtureVersion[]> = {
  'com.beta.ui': [{ version: '1.0.0' }, { version: '1.2.0' }],
};
const DEAD = 'http://127.0.0.1:9';
const UNITY = 'https://packages.unity.com';

let alpha: TestRegistry;
let beta: TestRegistry;
let guarded: TestRegistry;
let guardedToken: string;
let home: Home;
let temp: string;

async function fixtureRegistry(fixtures: Record<string, FixtureVersion[]>, settings: Record<string, string> = {}) {
  const registry = await startRegistry({ captureLogs: true, settings });
  const token = await loginUser(registry.url, 'publisher');
  await publishFixtures(registry.url, token, fixtures);
  return { registry, token };
}

beforeAll(async () => {
  [{ registry: alpha }, { registry: beta }, { registry: guarded, token: guardedToken }] = await Promise.all([
    fixtureRegistry(ALPHA),
    fixtureRegistry(BETA),
    fixtureRegistry({ 'com.guarded.kit': [{ version: '1.0.0' }, { version: '1.5.0' }] }, { readAccess: 'token' }),
  ]);
  home = await makeHome();
  temp = path.join(home.dir, 'tmp');
  await mkdir(temp);
});
afterAll(async () => {
  await Promise.all([alpha?.close(), beta?.close(), guarded?.close()]);
});

/** Package names each registry was asked about (documents and tarballs) since `mark`. */
function asked(registry: TestRegistry, mark: number): string[] {
  const names = registry.logLines
    .slice(mark)
    .flatMap((chunk) => chunk.split('\n'))
    .filter((line) => line.length > 0)
    .map((line) => JSON.parse(line) as { msg?: string; url?: string })
    .filter((entry) => entry.msg === 'request' && typeof entry.url === 'string' && !entry.url.startsWith('/-/'))
    .map((entry) => decodeURIComponent(entry.url!.slice(1).split('/')[0]!));
  return [...new Set(names)].sort();
}

const pkg = (args: string[], cwd: string, env: Record<string, string> = {}) =>
  runPkg(args, { home, cwd, env: { PKG_REGISTRY: DEAD, TMPDIR: temp, ...env } });

describe('a project with several registries (built binary)', () => {
  it('lists, updates, installs and uninstalls each package with its own registry, and asks each only for its packages', async () => {
    const manifest = {
      dependencies: {
        'com.alpha.app': '1.0.0',
        'com.alpha.extra': '1.0.0',
        'com.beta.ui': '1.0.0',
        'com.unity.modules.ui': '1.0.0',
        'com.unity.textmeshpro': '3.0.6',
      },
      scopedRegistries: [
        { name: 'alpha', url: alpha.url, scopes: ['com.alpha.app', 'com.alpha.core', 'com.alpha.extra'] },
        { name: 'beta', url: beta.url, scopes: ['com.beta'] },
      ],
    };
    const project = await tmpUnityProject({ 'Packages/manifest.json': manifest });
    const read = async () => JSON.parse(await project.read('Packages/manifest.json'));

    let marks = [alpha.logLines.length, beta.logLines.length];
    const listed = await pkg(['list', '--json'], project.dir);
    expect(listed.stderr).toBe('');
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout).packages).toEqual([
      {
        package: 'com.alpha.app',
        requested: '1.0.0',
        resolved: null,
        latest_compatible: '1.1.0',
        status: 'registry',
        outdated: true,
        registry: alpha.url,
        unity_signature: null,
      },
      {
        package: 'com.alpha.extra',
        requested: '1.0.0',
        resolved: null,
        latest_compatible: '1.0.0',
        status: 'registry',
        outdated: false,
        registry: alpha.url,
        unity_signature: null,
      },
      {
        package: 'com.beta.ui',
        requested: '1.0.0',
        resolved: null,
        latest_compatible: '1.2.0',
        status: 'registry',
        outdated: true,
        registry: beta.url,
        unity_signature: null,
      },
      {
        package: 'com.unity.modules.ui',
        requested: '1.0.0',
        resolved: null,
        latest_compatible: null,
        status: 'built-in',
        outdated: false,
        registry: null,
      },
      {
        package: 'com.unity.textmeshpro',
        requested: '3.0.6',
        resolved: null,
        latest_compatible: null,
        status: 'unity-registry',
        outdated: false,
        registry: UNITY,
      },
    ]);
    expect(asked(alpha, marks[0]!)).toEqual(['com.alpha.app', 'com.alpha.extra']);
    expect(asked(beta, marks[1]!)).toEqual(['com.beta.ui']);

    // --registry narrows the run to that registry's packages.
    marks = [alpha.logLines.length, beta.logLines.length];
    const narrowed = await pkg(['list', '--outdated', '--json', '--registry', beta.url], project.dir);
    expect(JSON.parse(narrowed.stdout).packages.map((p: { package: string }) => p.package)).toEqual(['com.beta.ui']);
    expect(asked(alpha, marks[0]!)).toEqual([]);

    // A package named with a --registry that does not serve it is refused, not silently skipped.
    const before = await project.read('Packages/manifest.json');
    for (const [command, name, from] of [
      ['update', 'com.alpha.app', `comes from ${alpha.url}`],
      ['uninstall', 'com.alpha.app', `comes from ${alpha.url}`],
      ['uninstall', 'com.unity.textmeshpro', `comes from ${UNITY}`],
      ['update', 'com.unity.modules.ui', 'is built into the editor'],
    ] as const) {
      const refused = await pkg([command, name, '--registry', beta.url], project.dir);
      expect(refused.code, `${command} ${name}`).toBe(1);
      expect(refused.stderr).toBe(
        `Error: package '${name}' does not come from ${beta.url}\nHint: It ${from}; run without --registry to act on it.\n`,
      );
    }
    expect(await project.read('Packages/manifest.json')).toBe(before);

    marks = [alpha.logLines.length, beta.logLines.length];
    const updated = await pkg(['update', '--json'], project.dir);
    expect(updated.stderr).toBe('');
    expect(updated.code).toBe(0);
    expect(JSON.parse(updated.stdout)).toMatchObject({
      registry: DEAD,
      registries: [alpha.url, beta.url],
      updated: [
        { package: 'com.alpha.app', old_version: '1.0.0', new_version: '1.1.0' },
        { package: 'com.beta.ui', old_version: '1.0.0', new_version: '1.2.0' },
      ],
      unchanged: [
        { package: 'com.alpha.extra', version: '1.0.0', status: 'latest' },
        { package: 'com.unity.modules.ui', version: '1.0.0', status: 'built-in' },
        { package: 'com.unity.textmeshpro', version: '3.0.6', status: 'unity-registry' },
      ],
      // The new dependency comes from the registry of the package that needs it.
      scopes_added: ['com.alpha.log'],
    });
    expect(await read()).toEqual({
      dependencies: { ...manifest.dependencies, 'com.alpha.app': '1.1.0', 'com.beta.ui': '1.2.0' },
      scopedRegistries: [
        { name: 'alpha', url: alpha.url, scopes: ['com.alpha.app', 'com.alpha.core', 'com.alpha.extra', 'com.alpha.log'] },
        { name: 'beta', url: beta.url, scopes: ['com.beta'] },
      ],
    });
    expect(asked(alpha, marks[0]!)).toEqual(['com.alpha.app', 'com.alpha.core', 'com.alpha.extra', 'com.alpha.log']);
    expect(asked(beta, marks[1]!)).toEqual(['com.beta.ui']);

    marks = [alpha.logLines.length, beta.logLines.length];
    // An empty cache: what update fetched (documents, tarballs) would answer it without asking.
    const installed = await pkg(['install', '--json'], project.dir, { PKG_CACHE_DIR: path.join(home.dir, 'empty-cache') });
    expect(installed.stderr).toBe('');
    expect(installed.code).toBe(0);
    const report = JSON.parse(installed.stdout);
    // Unity resolves core to the highest version asked for (1.1.0): 1.0.0 is not needed.
    expect(
      report.fetched.map((f: { package: string; version: string; registry: string }) => [f.package, f.version, f.registry]),
    ).toEqual([
      ['com.alpha.app', '1.1.0', alpha.url],
      ['com.alpha.extra', '1.0.0', alpha.url],
      ['com.beta.ui', '1.2.0', beta.url],
      ['com.alpha.core', '1.1.0', alpha.url],
      ['com.alpha.log', '1.0.0', alpha.url],
    ]);
    expect(report.skipped).toEqual([
      { package: 'com.unity.modules.ui', version: '1.0.0', status: 'built-in' },
      { package: 'com.unity.textmeshpro', version: '3.0.6', status: 'unity-registry' },
    ]);
    expect(asked(alpha, marks[0]!)).toEqual(['com.alpha.app', 'com.alpha.core', 'com.alpha.extra', 'com.alpha.log']);
    expect(asked(beta, marks[1]!)).toEqual(['com.beta.ui']);

    marks = [alpha.logLines.length, beta.logLines.length];
    // An empty cache again, so that what each registry is asked shows.
    const removed = await pkg(['uninstall', 'com.alpha.app', '--json'], project.dir, {
      PKG_CACHE_DIR: path.join(home.dir, 'empty-cache-2'),
    });
    expect(removed.stderr).toBe('');
    expect(removed.code).toBe(0);
    // log was only app's; core is still needed by extra.
    expect(await read()).toEqual({
      dependencies: {
        'com.alpha.extra': '1.0.0',
        'com.beta.ui': '1.2.0',
        'com.unity.modules.ui': '1.0.0',
        'com.unity.textmeshpro': '3.0.6',
      },
      scopedRegistries: [
        { name: 'alpha', url: alpha.url, scopes: ['com.alpha.core', 'com.alpha.extra'] },
        { name: 'beta', url: beta.url, scopes: ['com.beta'] },
      ],
    });
    expect(asked(alpha, marks[0]!).every((n) => n.startsWith('com.alpha.'))).toBe(true);
    expect(asked(beta, marks[1]!)).toEqual(['com.beta.ui']);

    // Removing the last package of an entry removes the entry (Unity refuses one without scopes).
    const last = await pkg(['uninstall', 'com.beta.ui'], project.dir);
    expect(last.code).toBe(0);
    expect((await read()).scopedRegistries).toEqual([
      { name: 'alpha', url: alpha.url, scopes: ['com.alpha.core', 'com.alpha.extra'] },
    ]);
  });

  it('adds through the manifest first, and from the registry in effect what no entry covers', async () => {
    const project = await tmpUnityProject({
      'Packages/manifest.json': {
        dependencies: {},
        scopedRegistries: [{ name: 'beta', url: beta.url, scopes: ['com.beta'] }],
      },
    });
    const added = await pkg(['add', 'com.beta.ui', 'com.alpha.extra', '--json'], project.dir, { PKG_REGISTRY: alpha.url });
    expect(added.stderr).toBe('');
    expect(added.code).toBe(0);
    expect(JSON.parse(await project.read('Packages/manifest.json'))).toEqual({
      dependencies: { 'com.alpha.extra': '1.0.0', 'com.beta.ui': '1.2.0' },
      scopedRegistries: [
        { name: 'beta', url: beta.url, scopes: ['com.beta'] },
        // Named as the registry calls itself (GET /-/pkg/registry): its host and port here.
        { name: new URL(alpha.url).host, url: alpha.url, scopes: ['com.alpha.core', 'com.alpha.extra'] },
      ],
    });
  });

  it('uninstalls a package whose registry cannot be reached, leaving the scopes as they are', async () => {
    const manifest = {
      dependencies: { 'com.alpha.app': '1.0.0', 'com.gone.tool': '1.0.0' },
      scopedRegistries: [
        { name: 'alpha', url: alpha.url, scopes: ['com.alpha'] },
        { name: 'gone', url: DEAD, scopes: ['com.gone'] },
      ],
    };
    const project = await tmpUnityProject({ 'Packages/manifest.json': manifest });
    const removed = await pkg(['uninstall', 'com.gone.tool', '--json'], project.dir);
    expect(removed.code).toBe(0);
    expect(JSON.parse(removed.stdout)).toMatchObject({ removed: [{ package: 'com.gone.tool', version: '1.0.0' }] });
    expect(removed.stderr).toMatch(
      /^Warning: The scopes of scopedRegistries were left as they are: com\.gone\.tool: Failed to connect to registry\. /,
    );
    expect(JSON.parse(await project.read('Packages/manifest.json'))).toEqual({
      ...manifest,
      dependencies: { 'com.alpha.app': '1.0.0' },
    });
  });

  it('refuses a scope listed by two entries, naming both, and changes nothing', async () => {
    const manifest = {
      dependencies: { 'com.beta.ui': '1.0.0' },
      scopedRegistries: [
        { name: 'one', url: alpha.url, scopes: ['com.beta'] },
        { name: 'two', url: beta.url, scopes: ['com.beta'] },
      ],
    };
    const project = await tmpUnityProject({ 'Packages/manifest.json': manifest });
    const result = await pkg(['update'], project.dir);
    expect(result.code).toBe(1);
    expect(result.stderr.split('\n')[0]).toBe(
      `Error: Scope 'com.beta' is listed by two scoped registries: 'one' (${alpha.url}) and 'two' (${beta.url})`,
    );
    expect(JSON.parse(await project.read('Packages/manifest.json'))).toEqual(manifest);
  });
});

describe('a dependency that cannot be resolved (built binary)', () => {
  const entry = () => ({ name: 'alpha', url: alpha.url, scopes: ['com.example'] });
  const CONFLICT = 'Error: version conflict: com.example.epsilon requires com.example.core@2.0.0';

  it('stops add, update and install with a version conflict worded for each, and writes nothing', async () => {
    const empty = { dependencies: {}, scopedRegistries: [entry()] };
    const forAdd = await tmpUnityProject({ 'Packages/manifest.json': empty });
    const backupsBefore = await readdir(temp);
    const add = await pkg(['add', 'com.example.epsilon@1.1.0'], forAdd.dir);
    expect(add.code).toBe(1);
    expect(add.stderr).toBe(
      `${CONFLICT}\nHint: No usable version 2.0.0 of com.example.core is published on the registry that serves it: add another version of com.example.epsilon (\`pkg info com.example.epsilon\` lists them), or publish com.example.core@2.0.0 first.\n`,
    );
    expect(JSON.parse(await forAdd.read('Packages/manifest.json'))).toEqual(empty);
    expect(await readdir(temp)).toEqual(backupsBefore);

    const older = { dependencies: { 'com.example.epsilon': '1.0.0' }, scopedRegistries: [entry()] };
    const forUpdate = await tmpUnityProject({ 'Packages/manifest.json': older });
    const update = await pkg(['update'], forUpdate.dir);
    expect(update.code).toBe(1);
    expect(update.stderr).toBe(
      `${CONFLICT}\nHint: No usable version 2.0.0 of com.example.core is published on the registry that serves it: keep com.example.epsilon at its current version (update the other packages by name), or publish com.example.core@2.0.0 first.\n`,
    );
    expect(JSON.parse(await forUpdate.read('Packages/manifest.json'))).toEqual(older);

    // A manifest written by hand: install checks what the closure needs, not what the cache holds.
    const forInstall = await tmpUnityProject({
      'Packages/manifest.json': { dependencies: { 'com.example.epsilon': '1.1.0' }, scopedRegistries: [entry()] },
    });
    const install = await pkg(['install'], forInstall.dir);
    expect(install.code).toBe(1);
    expect(install.stderr).toBe(
      `${CONFLICT}\nHint: No usable version 2.0.0 of com.example.core is published on the registry that serves it: pick another version of com.example.epsilon with \`pkg add com.example.epsilon@<version>\`, or publish com.example.core@2.0.0 first.\n`,
    );
    expect(await readdir(path.join(home.dir, '.cache', 'pkg', 'tarballs')).catch(() => [])).not.toContain('com.example.epsilon');

    // A dependency the manifest lists lower than needed wins in Unity: also a conflict for install.
    const lower = await tmpUnityProject({
      'Packages/manifest.json': {
        dependencies: { 'com.alpha.app': '1.1.0', 'com.alpha.core': '1.0.0' },
        scopedRegistries: [{ name: 'alpha', url: alpha.url, scopes: ['com.alpha'] }],
      },
    });
    const lowerInstall = await pkg(['install'], lower.dir);
    expect(lowerInstall.code).toBe(1);
    expect(lowerInstall.stderr).toBe(
      'Error: version conflict: com.alpha.app requires com.alpha.core@1.1.0\nHint: The manifest lists com.alpha.core@1.0.0, which wins over what com.alpha.app needs: raise it with `pkg add com.alpha.core@1.1.0`, or pick another version of com.alpha.app with `pkg add com.alpha.app@<version>`.\n',
    );
  });
});

describe("Unity's credentials (built binary)", () => {
  const upmconfig = (alwaysAuth: boolean) =>
    `[npmAuth."${guarded.url}/"]\ntoken = "${guardedToken}"\nalwaysAuth = ${alwaysAuth}\n`;

  it('reads a registry that wants a token with the one in ~/.upmconfig.toml', async () => {
    const project = await tmpUnityProject({
      'Packages/manifest.json': {
        dependencies: { 'com.guarded.kit': '1.0.0' },
        scopedRegistries: [{ name: 'guarded', url: guarded.url, scopes: ['com.guarded'] }],
      },
    });
    const without = await pkg(['list'], project.dir);
    expect(without.code).toBe(1);
    expect(without.stderr).toContain(`Error: Authentication required by ${guarded.url}\n`);
    expect(without.stderr).toContain(`pkg login --registry ${guarded.url}`);
    const withoutJson = await pkg(['list', '--json'], project.dir);
    expect(JSON.parse(withoutJson.stdout)).toMatchObject({ success: false, code: 'AUTH_REQUIRED' });

    for (const alwaysAuth of [true, false]) {
      const file = path.join(home.dir, `upmconfig-${alwaysAuth}.toml`);
      await writeFile(file, upmconfig(alwaysAuth));
      const mark = guarded.logLines.length;
      const listed = await pkg(['list', '--json'], project.dir, { UPM_USER_CONFIG_FILE: file });
      expect(listed.stderr).toBe('');
      expect(listed.code).toBe(0);
      expect(JSON.parse(listed.stdout).packages).toMatchObject([{ package: 'com.guarded.kit', latest_compatible: '1.5.0' }]);
      const statuses = guarded.logLines
        .slice(mark)
        .flatMap((chunk) => chunk.split('\n'))
        .filter((line) => line.includes('"msg":"request"'))
        // The document's requests (list also asks which advisories apply, after it).
        .filter((line) => !line.includes('/-/npm/v1/security/'))
        .map((line) => (JSON.parse(line) as { statusCode?: number; status?: number }).statusCode ?? JSON.parse(line).status);
      // alwaysAuth = false: the token goes only once the registry asks for it; the document the
      // first run kept is then revalidated (304), which the registry answers only with the token.
      expect(statuses).toEqual(alwaysAuth ? [200] : [401, 304]);
    }
    // The token never shows.
    expect(without.stderr).not.toContain(guardedToken);
  });

  it('reads and installs from it with `_auth` (Basic name and password), which our registry checks as a login', async () => {
    const project = await tmpUnityProject({
      'Packages/manifest.json': {
        dependencies: { 'com.guarded.kit': '1.0.0' },
        scopedRegistries: [{ name: 'guarded', url: guarded.url, scopes: ['com.guarded'] }],
      },
    });
    const auth = (password: string, alwaysAuth: boolean) =>
      `[npmAuth."${guarded.url}"]\n_auth = "${Buffer.from(`publisher:${password}`).toString('base64')}"\nalwaysAuth = ${alwaysAuth}\n`;

    for (const alwaysAuth of [true, false]) {
      const file = path.join(home.dir, `upmconfig-auth-${alwaysAuth}.toml`);
      await writeFile(file, auth('secret-password', alwaysAuth));
      const listed = await pkg(['list', '--json'], project.dir, { UPM_USER_CONFIG_FILE: file });
      expect(listed.stderr).toBe('');
      expect(listed.code).toBe(0);
      expect(JSON.parse(listed.stdout).packages).toMatchObject([{ package: 'com.guarded.kit', latest_compatible: '1.5.0' }]);
      const installed = await pkg(['install', '--json'], project.dir, { UPM_USER_CONFIG_FILE: file });
      expect(installed.code).toBe(0);
      expect(JSON.parse(installed.stdout).fetched).toMatchObject([{ package: 'com.guarded.kit', version: '1.0.0' }]);
    }

    const file = path.join(home.dir, 'upmconfig-auth-wrong.toml');
    await writeFile(file, auth('not-the-password', true));
    const wrong = await pkg(['list'], project.dir, { UPM_USER_CONFIG_FILE: file });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toBe(
      `Error: Authentication failed: the registry rejected the _auth name and password in ${file}\nHint: ${guarded.url} rejected the _auth name and password in ${file}: the name or the password is wrong. Run \`pkg login --registry ${guarded.url}\` again.\n`,
    );
    expect(wrong.stderr).not.toContain('not-the-password');
  });
});
