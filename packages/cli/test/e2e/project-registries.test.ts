import { writeFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loginUser, publishFixtures, removedAfterTest, startRegistry, tmpUnityProject, type TestRegistry } from '@pkg/testkit';
import { makeHome, runPkg, type Home } from '../support/spawn.js';

// One view of a project's registries (built binary): info, search and whoami follow the
// project's scoped registries and credentials, and one registry down, or plain http beyond
// this machine, costs only its own packages.
let studio: TestRegistry;
let vendor: TestRegistry;
let vendorToken: string;
let home: Home;

beforeAll(async () => {
  [studio, vendor] = await Promise.all([startRegistry(), startRegistry()]);
  const studioToken = await loginUser(studio.url, 'studio-dev');
  vendorToken = await loginUser(vendor.url, 'vendor-dev');
  await publishFixtures(studio.url, studioToken, {
    'com.studio.tool': [
      { version: '1.0.0', manifest: { description: 'Studio tool' } },
      { version: '1.1.0', manifest: { description: 'Studio tool' } },
    ],
  });
  await publishFixtures(vendor.url, vendorToken, {
    'com.vendor.tool': [{ version: '2.0.0', manifest: { description: 'Vendor tool' } }],
  });
  home = await makeHome();
});
afterAll(async () => {
  await studio?.close();
  await vendor?.close();
});

const pkg = (args: string[], cwd: string) => runPkg(args, { home, env: { PKG_REGISTRY: studio.url }, cwd });

async function twoRegistryProject(extra: { dependencies?: Record<string, string>; scopedRegistries?: object[] } = {}) {
  return removedAfterTest(
    tmpUnityProject({
      'Packages/manifest.json': {
        dependencies: { 'com.studio.tool': '1.0.0', 'com.vendor.tool': '2.0.0', ...extra.dependencies },
        scopedRegistries: [
          { name: 'Studio', url: studio.url, scopes: ['com.studio'] },
          { name: 'Vendor', url: vendor.url, scopes: ['com.vendor'] },
          ...(extra.scopedRegistries ?? []),
        ],
      },
    }),
  );
}

describe("a project's registries (built binary)", () => {
  it('info asks the registry the project names for the package; search asks every one and labels the results', async () => {
    const project = await twoRegistryProject();
    const info = await pkg(['info', 'com.vendor.tool', '--json'], project.dir);
    expect(info.stderr).toBe('');
    expect(info.code).toBe(0);
    expect(JSON.parse(info.stdout)).toMatchObject({ name: 'com.vendor.tool', version: '2.0.0', registry: vendor.url });
    expect((await pkg(['info', 'com.vendor.tool'], project.dir)).stdout).toContain(
      `Registry: ${vendor.url} (from Packages/manifest.json)\n`,
    );

    const search = await pkg(['search', 'tool', '--json'], project.dir);
    expect(search.stderr).toBe('');
    expect(search.code).toBe(0);
    const found = JSON.parse(search.stdout);
    expect(found.registries).toEqual([studio.url, vendor.url]);
    expect(found.results.map((r: { name: string; registry: string }) => [r.name, r.registry])).toEqual([
      ['com.studio.tool', studio.url],
      ['com.vendor.tool', vendor.url],
    ]);
    const text = await pkg(['search', 'tool'], project.dir);
    expect(text.stdout).toContain(`com.vendor.tool (2.0.0)\n  Registry: ${vendor.url}\n`);
  });

  it("whoami --registry sends ~/.upmconfig.toml's token, as every other command does", async () => {
    const project = await twoRegistryProject();
    const own = await makeHome();
    await writeFile(own.upmconfig, `[npmAuth."${vendor.url}"]\ntoken = "${vendorToken}"\nalwaysAuth = true\n`);
    const who = await runPkg(['whoami', '--registry', vendor.url, '--json'], { home: own, cwd: project.dir });
    expect(who.stderr).toBe('');
    expect(JSON.parse(who.stdout)).toMatchObject({ success: true, username: 'vendor-dev', registry: vendor.url });
    const nobody = await runPkg(['whoami', '--registry', studio.url], { home: own, cwd: project.dir });
    expect(nobody.code).toBe(1);
    expect(nobody.stderr).toMatch(/^Error: Not logged in to /);
  });

  it('a plain-http registry beyond this machine is refused for its own packages only, saying why and what to do', async () => {
    const project = await twoRegistryProject({
      dependencies: { 'com.build.shaders': '1.0.0' },
      scopedRegistries: [{ name: 'Build box', url: 'http://buildbox.lan:4873', scopes: ['com.build'] }],
    });
    const listed = await pkg(['list', '--json'], project.dir);
    expect(listed.code).toBe(1);
    const report = JSON.parse(listed.stdout);
    expect(report).toMatchObject({
      success: false,
      partial: true,
      unreachable: [{ registry: 'http://buildbox.lan:4873', code: 'INSECURE_REGISTRY' }],
    });
    const byName = Object.fromEntries(report.packages.map((p: { package: string }) => [p.package, p]));
    expect(byName['com.studio.tool']).toMatchObject({ status: 'registry', latest_compatible: '1.1.0', outdated: true });
    expect(byName['com.vendor.tool']).toMatchObject({ status: 'registry', latest_compatible: '2.0.0' });
    expect(byName['com.build.shaders']).toMatchObject({ status: 'registry-unreachable', latest_compatible: null });
    expect(listed.stderr).toMatch(
      /Warning: http:\/\/buildbox\.lan:4873 could not be asked, .*Refusing plain http:\/\/ to buildbox\.lan:4873 .*named in Packages\/manifest\.json.*TLS proxy/,
    );
    // The refused registry's package is refused by info too, with the same reason (exit 1, not a usage error).
    const info = await pkg(['info', 'com.build.shaders'], project.dir);
    expect(info.code).toBe(1);
    expect(info.stderr).toMatch(/^Error: Refusing plain http:\/\/ to buildbox\.lan:4873/);
  });

  it('with one registry stopped, the other is still listed, searched and shown; the exit code says something was missing', async () => {
    const project = await twoRegistryProject();
    await vendor.close();
    const outdated = await pkg(['list', '--outdated', '--json'], project.dir);
    expect(outdated.code).toBe(1);
    const report = JSON.parse(outdated.stdout);
    expect(report.unreachable).toEqual([expect.objectContaining({ registry: vendor.url, code: 'FETCH_FAILED' })]);
    expect(report.packages).toEqual([
      expect.objectContaining({ package: 'com.studio.tool', latest_compatible: '1.1.0', outdated: true }),
    ]);
    expect(outdated.stderr).toContain(`Warning: ${vendor.url} could not be asked`);

    const search = await pkg(['search', 'tool'], project.dir);
    expect(search.code).toBe(1);
    expect(search.stdout).toContain(`com.studio.tool (1.1.0)\n  Registry: ${studio.url}\n`);
    expect(search.stderr).toMatch(
      new RegExp(`^Warning: ${vendor.url.replace(/[.:/]/g, '\\$&')} was not searched: Failed to connect to registry`),
    );

    // A typo for a package of the registry that is up is a typo, not the other's outage.
    const typo = await pkg(['info', 'com.studio.tol'], project.dir);
    expect(typo.code).toBe(1);
    expect(typo.stderr).toMatch(/^Error: Package 'com\.studio\.tol' not found/);
    expect((await pkg(['info', 'com.studio.tool'], project.dir)).code).toBe(0);
  });
});
