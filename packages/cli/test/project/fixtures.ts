import { readdir, rm } from 'node:fs/promises';
import {
  loginUser,
  publishFixtures,
  startRegistry,
  tmpUnityProject,
  type FixtureVersion,
  type ProjectFiles,
  type TestRegistry,
  type TmpUnityProject,
} from '@pkg/testkit';
import { testDeps, type TestDeps } from '../support/deps.js';

const old = { unity: '2021.3' };
const tooNew = { unity: '2023.1' };

/**
 * The packages every project-command test works with (the test editor is 2022.3.10f1):
 * - com.fixture.a: several majors and an editor-incompatible newest minor;
 * - app → lib → core: a dependency chain whose new versions need raises;
 * - x → y@2: a raise across a major (a conflict without --latest);
 * - com.fixture.b: its `latest` needs a newer editor, an older major does not;
 * - com.fixture.engine: nothing but versions the editor is too old for.
 */
export const FIXTURES: Record<string, FixtureVersion[]> = {
  'com.fixture.a': [
    { version: '1.0.0', manifest: old },
    { version: '1.1.0', manifest: old },
    { version: '1.2.0', manifest: { unity: '2022.3', unityRelease: '10f1' } },
    { version: '1.3.0', manifest: tooNew },
    { version: '2.0.0', manifest: old },
    { version: '2.1.0', manifest: old },
  ],
  'com.fixture.core': [{ version: '1.0.0' }, { version: '1.1.0' }, { version: '1.4.0' }],
  'com.fixture.lib': [
    { version: '1.0.0', manifest: { dependencies: { 'com.fixture.core': '1.0.0' } } },
    { version: '1.2.0', manifest: { dependencies: { 'com.fixture.core': '1.1.0' } } },
  ],
  'com.fixture.app': [
    { version: '1.0.0', manifest: { dependencies: { 'com.fixture.lib': '1.0.0' } } },
    { version: '1.1.0', manifest: { dependencies: { 'com.fixture.lib': '1.2.0', 'com.unity.modules.ui': '1.0.0' } } },
  ],
  'com.fixture.y': [{ version: '1.0.0' }, { version: '2.0.0' }],
  'com.fixture.x': [
    { version: '1.0.0', manifest: { dependencies: { 'com.fixture.y': '1.0.0' } } },
    { version: '1.1.0', manifest: { dependencies: { 'com.fixture.y': '2.0.0' } } },
  ],
  'com.fixture.b': [
    { version: '1.0.0', manifest: old },
    { version: '2.0.0', manifest: tooNew },
  ],
  'com.fixture.engine': [{ version: '1.0.0', manifest: { unity: '6000.0', unityRelease: '23f1' } }],
};

/** A registry on port 0 holding FIXTURES, published through the real publish API. */
export async function fixtureRegistry(): Promise<TestRegistry> {
  const registry = await startRegistry();
  const token = await loginUser(registry.url, 'fixture-publisher');
  await publishFixtures(registry.url, token, FIXTURES);
  return registry;
}

export interface ProjectRun {
  project: TmpUnityProject;
  deps: TestDeps;
}

const made: string[] = [];

/** Removes the projects and client homes the tests of this file made. */
export async function removeProjects(): Promise<void> {
  await Promise.all(made.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
}

/** The scoped-registry entry that sends `com.fixture.*` to the fixture registry. */
export function fixtureEntry(registry: TestRegistry) {
  return { name: 'fixtures', url: registry.url, scopes: ['com.fixture'] };
}

/**
 * A Unity project built from `files` and in-process client deps pointed at `registry`, run from
 * the project. A manifest given as an object that names no registry gets `fixtureEntry` (Unity
 * would otherwise ask its own registry for the fixtures). `removeProjects()` deletes both.
 */
export async function projectWith(
  registry: TestRegistry,
  files: ProjectFiles,
  overrides: Partial<TestDeps> = {},
): Promise<ProjectRun> {
  const manifest = files['Packages/manifest.json'];
  if (typeof manifest === 'object' && manifest !== null && !Buffer.isBuffer(manifest)) {
    const value = manifest as Record<string, unknown>;
    if (value.scopedRegistries === undefined && value.registry === undefined) {
      files = { ...files, 'Packages/manifest.json': { ...value, scopedRegistries: [fixtureEntry(registry)] } };
    }
  }
  const project = await tmpUnityProject(files);
  made.push(project.dir);
  const deps = await testDeps({ cwd: project.dir, env: { PKG_REGISTRY: registry.url }, ...overrides });
  made.push(deps.homedir);
  return { project, deps };
}

/** Names of the backup folders under the deps' temp directory. */
export async function backups(deps: TestDeps): Promise<string[]> {
  const entries = await readdir(deps.tmpdir).catch(() => []);
  return entries.filter((e) => e.startsWith('pkg-backup-'));
}

/** 2-space JSON with a final newline, as Unity writes manifest.json. */
export function unityJson(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}
