import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loginUser, publishFixtures, startRegistry, tmpUnityProject, type TestRegistry } from '@pkg/testkit';
import { FIXTURES, fixtureEntry } from '../project/fixtures.js';
import { makeHome, runPkg, type Home } from '../support/spawn.js';

// The built `pkg` against a real registry (which sends `Cache-Control: public, max-age=300`, an
// ETag and Last-Modified with every document), counting the requests in the registry's own log.
let registry: TestRegistry;
let token: string;

beforeAll(async () => {
  registry = await startRegistry({ captureLogs: true });
  token = await loginUser(registry.url, 'fixture-publisher');
  await publishFixtures(registry.url, token, FIXTURES);
});
afterAll(async () => registry?.close());

interface Logged {
  method: string;
  url: string;
  status: number;
}

/** The document requests (`GET /<name>`) the registry logged since `from`. */
function documentRequests(from: number): Logged[] {
  return registry.logLines
    .slice(from)
    .flatMap((chunk) => chunk.split('\n'))
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as { msg: string } & Logged)
    .filter((l) => l.msg === 'request' && l.method === 'GET' && /^\/com\.fixture\.[a-z]+$/.test(l.url));
}

async function unityProject() {
  return tmpUnityProject({
    'Packages/manifest.json': JSON.stringify({
      dependencies: { 'com.fixture.app': '1.1.0', 'com.fixture.a': '1.2.0' },
      scopedRegistries: [fixtureEntry(registry)],
    }),
  });
}

/** Every entry of the home's document cache, rewritten as if stored `seconds` ago. */
async function age(home: Home, seconds: number): Promise<number> {
  const root = path.join(home.env.XDG_CACHE_HOME!, 'pkg', 'documents');
  let n = 0;
  for (const folder of await readdir(root)) {
    for (const name of await readdir(path.join(root, folder))) {
      const file = path.join(root, folder, name);
      const text = await readFile(file, 'utf8');
      const newline = text.indexOf('\n');
      const meta = JSON.parse(text.slice(0, newline)) as { storedAt: number };
      meta.storedAt -= seconds * 1000;
      await writeFile(file, `${JSON.stringify(meta)}\n${text.slice(newline + 1)}`);
      n++;
    }
  }
  return n;
}

describe('the document cache (built binary, real registry)', () => {
  it('answers a second install from the cache, revalidates stale documents with 304, and refetches a damaged one', async () => {
    const home = await makeHome();
    const project = await unityProject();
    const cwd = project.dir;
    const env = { PKG_REGISTRY: registry.url };

    let mark = registry.logLines.length;
    const cold = await runPkg(['install', '--json'], { home, env, cwd });
    expect(cold.code).toBe(0);
    const fetched = JSON.parse(cold.stdout).fetched as { package: string; version: string }[];
    const coldRequests = documentRequests(mark);
    // app → lib → core, and a: four documents, each asked once, each a 200.
    expect(coldRequests.map((r) => r.url).sort()).toEqual([
      '/com.fixture.a',
      '/com.fixture.app',
      '/com.fixture.core',
      '/com.fixture.lib',
    ]);
    expect(coldRequests.every((r) => r.status === 200)).toBe(true);

    // Within max-age: not one document request, and the same packages.
    mark = registry.logLines.length;
    const warm = await runPkg(['install', '--json'], { home, env, cwd });
    expect(warm.code).toBe(0);
    expect(JSON.parse(warm.stdout).fetched).toEqual(fetched.map((f) => ({ ...f, cached: true })));
    expect(documentRequests(mark)).toEqual([]);

    // Past max-age: each asked again with its validators, and the registry's 304 reuses it.
    expect(await age(home, 301)).toBe(4);
    mark = registry.logLines.length;
    const stale = await runPkg(['install', '--json'], { home, env, cwd });
    expect(stale.code).toBe(0);
    expect(JSON.parse(stale.stdout).fetched).toEqual(fetched.map((f) => ({ ...f, cached: true })));
    const revalidated = documentRequests(mark);
    expect(revalidated).toHaveLength(4);
    expect(revalidated.every((r) => r.status === 304)).toBe(true);
    // ... and fresh again for max-age from the 304.
    mark = registry.logLines.length;
    expect((await runPkg(['install'], { home, env, cwd })).code).toBe(0);
    expect(documentRequests(mark)).toEqual([]);

    // A damaged entry is a miss: fetched whole again, and the install does not notice.
    const root = path.join(home.env.XDG_CACHE_HOME!, 'pkg', 'documents');
    const [folder] = await readdir(root);
    await writeFile(path.join(root, folder!, 'com.fixture.lib.json'), '{"v":1,"storedAt":');
    mark = registry.logLines.length;
    const repaired = await runPkg(['install', '--json'], { home, env, cwd });
    expect(repaired.code).toBe(0);
    expect(documentRequests(mark).map((r) => [r.url, r.status])).toEqual([['/com.fixture.lib', 200]]);

    // `pkg cache clean <name>` drops that package's document with its tarballs; without names, all.
    const cleaned = await runPkg(['cache', 'clean', 'com.fixture.core', '--json'], { home, env, cwd });
    expect(JSON.parse(cleaned.stdout)).toMatchObject({ success: true, removed_documents: 1 });
    mark = registry.logLines.length;
    expect((await runPkg(['install'], { home, env, cwd })).code).toBe(0);
    expect(documentRequests(mark).map((r) => [r.url, r.status])).toEqual([['/com.fixture.core', 200]]);
    expect(JSON.parse((await runPkg(['cache', 'clean', '--json'], { home, env, cwd })).stdout)).toMatchObject({
      removed_documents: 4,
    });
  });

  it('pkg info always asks the registry (304 while unchanged), so a version published meanwhile shows at once', async () => {
    const home = await makeHome();
    const env = { PKG_REGISTRY: registry.url };
    let mark = registry.logLines.length;
    expect((await runPkg(['info', 'com.fixture.core', '--json'], { home, env })).code).toBe(0);
    expect(documentRequests(mark).map((r) => r.status)).toEqual([200]);

    mark = registry.logLines.length;
    expect((await runPkg(['info', 'com.fixture.core', '--json'], { home, env })).code).toBe(0);
    expect(documentRequests(mark).map((r) => r.status)).toEqual([304]);

    await publishFixtures(registry.url, token, { 'com.fixture.core': [{ version: '1.5.0' }] });
    mark = registry.logLines.length;
    const after = await runPkg(['info', 'com.fixture.core', '--json'], { home, env });
    expect(after.code).toBe(0);
    expect(documentRequests(mark).map((r) => r.status)).toEqual([200]);
    expect(after.stdout).toContain('1.5.0');
  });

  it('keeps documents apart per registry: the same name on another registry is its own entry', async () => {
    const other = await startRegistry({ captureLogs: true });
    try {
      const otherToken = await loginUser(other.url, 'other-publisher');
      await publishFixtures(other.url, otherToken, { 'com.fixture.core': [{ version: '9.0.0' }] });
      const home = await makeHome();
      const here = await runPkg(['info', 'com.fixture.core', '--json'], { home, env: { PKG_REGISTRY: registry.url } });
      const there = await runPkg(['info', 'com.fixture.core', '--json'], { home, env: { PKG_REGISTRY: other.url } });
      expect(here.code).toBe(0);
      expect(there.code).toBe(0);
      expect(there.stdout).toContain('9.0.0');
      expect(here.stdout).not.toContain('9.0.0');
      expect(await readdir(path.join(home.env.XDG_CACHE_HOME!, 'pkg', 'documents'))).toHaveLength(2);
    } finally {
      await other.close();
    }
  });
});
