import { mkdir, mkdtemp, readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tmpUnityProject, type TestRegistry } from '@pkg/testkit';
import { fixtureEntry, fixtureRegistry } from '../project/fixtures.js';
import { makeHome, runPkg, runPkgInPty, type Home } from '../support/spawn.js';

// The built `pkg` against a real registry holding fixtures published through the publish API.
const SEP = '─'.repeat(40);
let registry: TestRegistry;
let home: Home;
let temp: string;
let env: Record<string, string>;

beforeAll(async () => {
  registry = await fixtureRegistry();
  home = await makeHome();
  // TMPDIR is where os.tmpdir() — and so the backups — point.
  temp = path.join(home.dir, 'tmp');
  await mkdir(temp);
  env = { PKG_REGISTRY: registry.url, TMPDIR: temp };
});
afterAll(async () => registry?.close());

const crlf4 = (value: unknown) => JSON.stringify(value, null, 4).split('\n').join('\r\n');

describe('pkg update (built binary)', () => {
  it('previews, then updates a 4-space CRLF manifest byte for byte, with a backup', async () => {
    const manifest = {
      dependencies: { 'com.fixture.app': '1.0.0', 'com.fixture.lib': '1.0.0', 'com.unity.modules.ui': '1.0.0' },
      scopedRegistries: [{ name: 'fixtures', url: registry.url, scopes: ['com.fixture'] }],
    };
    const project = await tmpUnityProject({ 'Packages/manifest.json': crlf4(manifest) });
    const cwd = project.path('Assets');

    const preview = await runPkg(['update', '--dry-run', '--json'], { home, env, cwd });
    expect(preview.stderr).toBe('');
    expect(preview.code).toBe(0);
    expect(JSON.parse(preview.stdout)).toMatchObject({
      success: true,
      dry_run: true,
      engine: 'unity',
      project: project.dir,
      backup_path: null,
      updated: [
        { package: 'com.fixture.app', old_version: '1.0.0', new_version: '1.1.0' },
        { package: 'com.fixture.lib', old_version: '1.0.0', new_version: '1.2.0' },
      ],
    });
    expect(await project.read('Packages/manifest.json')).toBe(crlf4(manifest));
    expect(await readdir(temp)).toEqual([]);

    const result = await runPkg(['update'], { home, env, cwd });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const [backup] = await readdir(temp);
    expect(result.stdout).toBe(
      [
        'Package Updates',
        SEP,
        'Engine: Unity 2022.3.10f1',
        `Project: ${project.dir}`,
        `Registry: ${registry.url}`,
        '',
        'Updated Packages:',
        '  com.fixture.app: 1.0.0 → 1.1.0',
        '  com.fixture.lib: 1.0.0 → 1.2.0',
        '',
        'No Updates Available:',
        '  com.unity.modules.ui: 1.0.0 (built-in)',
        '',
        `Backup: ${path.join(temp, backup!)}`,
        '2 packages updated successfully',
        '',
      ].join('\n'),
    );
    const expected = structuredClone(manifest);
    expected.dependencies['com.fixture.app'] = '1.1.0';
    expected.dependencies['com.fixture.lib'] = '1.2.0';
    expect(await project.read('Packages/manifest.json')).toBe(crlf4(expected));
    expect(await readFile(path.join(temp, backup!, 'Packages', 'manifest.json'), 'utf8')).toBe(crlf4(manifest));
  });

  it.each([
    ['outside a project', ['update'], 1, 'Error: no supported engine detected. Please specify --engine <engine>'],
    ['with an unknown engine', ['update', '--engine', 'cryengine'], 2, "Error: Unknown engine 'cryengine'"],
    [
      'for a package not in the project',
      ['update', 'com.fixture.nope'],
      1,
      "Error: package 'com.fixture.nope' not found in project",
    ],
    ['on a conflict', ['update', 'com.fixture.x'], 1, 'Error: version conflict: com.fixture.x requires com.fixture.y@2.0.0'],
  ])('fails %s with the spec’s message and exit code', async (situation, args, exit, message) => {
    const project = await tmpUnityProject({
      'Packages/manifest.json': {
        dependencies: { 'com.fixture.x': '1.0.0', 'com.fixture.y': '1.0.0' },
        scopedRegistries: [fixtureEntry(registry)],
      },
    });
    const cwd = situation === 'outside a project' ? await mkdtemp(path.join(tmpdir(), 'pkg-e2e-empty-')) : project.dir;
    const result = await runPkg(args, { home, env, cwd });
    expect(result.code).toBe(exit);
    expect(result.stdout).toBe('');
    expect(result.stderr.split('\n')[0]).toBe(message);
    expect(result.stderr).toMatch(/\nHint: .+\n$/);
    const json = await runPkg([...args, '--json'], { home, env, cwd });
    expect(json.code).toBe(exit);
    expect(json.stderr).toBe('');
    expect(JSON.parse(json.stdout)).toMatchObject({ success: false, error: message.replace(/^Error: /, '') });
  });
});

describe('pkg add, list, install, uninstall (built binary)', () => {
  it('adds with scopes, lists, installs into the cache and uninstalls', async () => {
    const project = await tmpUnityProject({ 'Packages/manifest.json': '{\n  "dependencies": {}\n}' });
    const cwd = project.dir;
    const added = await runPkg(['add', 'com.fixture.app', 'com.fixture.b'], { home, env, cwd });
    expect(added.stderr).toBe('');
    expect(added.code).toBe(0);
    expect(await project.read('Packages/manifest.json')).toBe(
      [
        '{',
        '  "dependencies": {',
        '    "com.fixture.app": "1.1.0",',
        '    "com.fixture.b": "1.0.0"',
        '  },',
        '  "scopedRegistries": [',
        '    {',
        `      "name": "${new URL(registry.url).host}",`,
        `      "url": "${registry.url}",`,
        '      "scopes": [',
        '        "com.fixture.app",',
        '        "com.fixture.b",',
        '        "com.fixture.core",',
        '        "com.fixture.lib"',
        '      ]',
        '    }',
        '  ]',
        '}',
      ].join('\n'),
    );

    const listed = await runPkg(['list', '--json'], { home, env, cwd });
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout).packages).toEqual([
      {
        package: 'com.fixture.app',
        requested: '1.1.0',
        resolved: null,
        latest_compatible: '1.1.0',
        status: 'registry',
        outdated: false,
        registry: registry.url,
        unity_signature: null,
      },
      {
        package: 'com.fixture.b',
        requested: '1.0.0',
        resolved: null,
        latest_compatible: '1.0.0',
        status: 'registry',
        outdated: false,
        registry: registry.url,
        unity_signature: null,
      },
    ]);

    const piped = await runPkg(['install'], { home, env, cwd });
    expect(piped.code).toBe(0);
    expect(piped.stderr).toBe('');
    expect(piped.stdout).toContain('4 packages verified in the cache (4 downloaded, 0 already cached)');

    const removed = await runPkg(['uninstall', 'com.fixture.app'], { home, env, cwd });
    expect(removed.code).toBe(0);
    expect(JSON.parse(await project.read('Packages/manifest.json'))).toEqual({
      dependencies: { 'com.fixture.b': '1.0.0' },
      scopedRegistries: [{ name: new URL(registry.url).host, url: registry.url, scopes: ['com.fixture.b'] }],
    });
  });

  it('draws the install progress bar in a terminal', async () => {
    const freshHome = await makeHome();
    const project = await tmpUnityProject({
      'Packages/manifest.json': { dependencies: { 'com.fixture.app': '1.1.0' }, scopedRegistries: [fixtureEntry(registry)] },
    });
    const result = await runPkgInPty(['install'], [], { home: freshHome, env, cwd: project.dir });
    expect(result.code).toBe(0);
    // Downloads run side by side: the bar ends on whichever package finished last.
    expect(result.stdout).toMatch(/3\/3 com\.fixture\.[a-z]+@\d+\.\d+\.\d+/);
    expect(result.stdout).toContain('3 packages verified in the cache (3 downloaded, 0 already cached)');
  });
});

describe('global packages (built binary)', () => {
  it('install, list, update and uninstall --global', async () => {
    const globalHome = await makeHome();
    const cwd = globalHome.dir;
    const installed = await runPkg(['install', '--global', 'com.fixture.core@1.0.0'], { home: globalHome, env, cwd });
    expect(installed.stderr).toBe('');
    expect(installed.code).toBe(0);
    const globalDir = path.join(globalHome.dir, '.local', 'share', 'pkg', 'global');
    expect(
      JSON.parse(await readFile(path.join(globalDir, 'packages', 'com.fixture.core', 'package.json'), 'utf8')),
    ).toMatchObject({
      version: '1.0.0',
    });

    const outdated = await runPkg(['list', '--global', '--outdated'], { home: globalHome, env, cwd });
    expect(outdated.stdout).toContain('com.fixture.core  1.0.0      1.0.0     1.4.0');

    const updated = await runPkg(['update', '--global', '--json'], { home: globalHome, env, cwd });
    expect(JSON.parse(updated.stdout)).toMatchObject({
      engine: 'global',
      updated: [{ package: 'com.fixture.core', old_version: '1.0.0', new_version: '1.4.0' }],
      message: '1 package updated successfully',
    });
    expect(JSON.parse(await readFile(path.join(globalDir, 'manifest.json'), 'utf8'))).toEqual({
      dependencies: { 'com.fixture.core': '1.4.0' },
      registries: { 'com.fixture.core': registry.url },
    });

    const removed = await runPkg(['uninstall', '--global', 'com.fixture.core'], { home: globalHome, env, cwd });
    expect(removed.code).toBe(0);
    expect(await readdir(path.join(globalDir, 'packages'))).toEqual([]);
  });
});
