import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  loginUser,
  publishBody,
  publishVersion,
  request,
  startRegistry,
  unityAttestation,
  type TestRegistry,
} from '@pkg/testkit';
import { run, testDeps } from '../support/deps.js';
import { projectWith, removeProjects } from './fixtures.js';

/**
 * `pkg list` and `pkg update` mark the versions a known advisory affects (severity, id, fixed
 * range, in --json too), `pkg update` prefers a version no advisory affects, and `pkg list`
 * shows Unity's package signature of each installed version.
 */
const LIB = 'com.mark.lib';
const SIGNED = 'com.mark.signed';
const PLAIN = 'com.mark.plain';
let registry: TestRegistry;

const crash = {
  id: 'CVE-2026-7',
  severity: 'high',
  vulnerable_versions: '<1.1.0',
  patched_versions: '>=1.1.0',
  title: 'Crash on load',
};
const regression = {
  id: 'PKG-REGRESSION',
  severity: 'critical',
  vulnerable_versions: '>=1.2.0 <1.3.0',
  patched_versions: '>=1.3.0',
  title: 'Saves are lost',
};

beforeAll(async () => {
  registry = await startRegistry();
  const token = await loginUser(registry.url, 'studio');
  for (const version of ['1.0.0', '1.1.0', '1.2.0'])
    expect((await publishVersion(registry.url, token, LIB, version, { manifest: { unity: '2021.3' } })).status).toBe(201);
  for (const advisory of [crash, regression]) {
    const res = await request(`${registry.url}/-/pkg/v1/advisories/${LIB}`, { method: 'POST', token, body: advisory });
    expect(res.status).toBe(201);
  }
  const signed = publishBody(SIGNED, '1.0.0', {
    manifest: { unity: '2021.3' },
    files: [{ path: 'package/.attestation.p7m', content: await unityAttestation('Acme Games Ltd') }],
  });
  expect((await request(`${registry.url}/${SIGNED}`, { method: 'PUT', token, body: signed.body })).status).toBe(201);
  expect((await publishVersion(registry.url, token, PLAIN, '1.0.0', { manifest: { unity: '2021.3' } })).status).toBe(201);
});
afterAll(async () => {
  await registry?.close();
  await removeProjects();
});

const manifest = () => ({
  'Packages/manifest.json': {
    dependencies: { [LIB]: '1.0.0', [SIGNED]: '1.0.0', [PLAIN]: '1.0.0', 'com.unity.modules.ui': '1.0.0' },
    scopedRegistries: [{ name: 'studio', url: registry.url, scopes: ['com.mark'] }],
  },
});

const mark = (advisory: typeof crash) => ({ ...advisory, url: expect.stringContaining(advisory.id) });

describe('pkg list', () => {
  it('marks the installed versions an advisory affects and shows the Unity signature of each', async () => {
    const { deps } = await projectWith(registry, manifest());
    const json = await run(deps, ['list', '--json']);
    expect(json.stderr).toBe('');
    expect(json.code).toBe(0);
    const byName = Object.fromEntries((JSON.parse(json.stdout).packages as { package: string }[]).map((p) => [p.package, p]));
    expect(byName[LIB]).toMatchObject({ unity_signature: null, advisories: [mark(crash)] });
    expect(byName[SIGNED]).toEqual(expect.objectContaining({ unity_signature: { signer: 'Acme Games Ltd' } }));
    expect(byName[SIGNED]).not.toHaveProperty('advisories');
    expect(byName[PLAIN]).toMatchObject({ unity_signature: null });
    expect(byName['com.unity.modules.ui']).not.toHaveProperty('unity_signature');

    const text = await run(deps, ['list']);
    expect(text.code).toBe(0);
    const lines = text.stdout.split('\n');
    expect(lines).toContain('Package               Requested  Resolved  Latest compatible  Unity signature');
    expect(lines).toContain(`${SIGNED}       1.0.0      -         1.0.0              signed by Acme Games Ltd`);
    expect(lines).toContain(`${PLAIN}        1.0.0      -         1.0.0              unsigned`);
    expect(text.stdout).toContain(
      [
        'Affected by Advisories:',
        `  ${LIB}@1.0.0`,
        '    HIGH  CVE-2026-7  Crash on load (affects <1.1.0, fixed in >=1.1.0)',
        'Run pkg audit for the versions that fix them.',
      ].join('\n'),
    );
  });
});

describe('pkg update', () => {
  it('prefers a version no advisory affects over a newer one that one does, and says so', async () => {
    const { deps } = await projectWith(registry, manifest());
    const json = await run(deps, ['update', LIB, '--dry-run', '--json']);
    expect(json.stderr).toBe('');
    const report = JSON.parse(json.stdout);
    // 1.2.0 is newer, but the regression affects it: 1.1.0 fixes the crash and has no known flaw.
    expect(report.updated).toEqual([{ package: LIB, old_version: '1.0.0', new_version: '1.1.0', advisories: [mark(crash)] }]);

    const text = await run(deps, ['update', LIB, '--dry-run']);
    expect(text.stdout).toContain(
      [
        'Advisories:',
        `  ${LIB}@1.0.0 → 1.1.0: 1.1.0 is not affected`,
        '    HIGH  CVE-2026-7  Crash on load (affects <1.1.0, fixed in >=1.1.0)',
      ].join('\n'),
    );
  });

  it('takes an affected version only when every newer one is, and marks it', async () => {
    const { deps } = await projectWith(registry, {
      'Packages/manifest.json': {
        dependencies: { [LIB]: '1.1.0' },
        scopedRegistries: [{ name: 'studio', url: registry.url, scopes: ['com.mark'] }],
      },
    });
    const report = JSON.parse((await run(deps, ['update', LIB, '--dry-run', '--json'])).stdout);
    expect(report.updated).toEqual([
      { package: LIB, old_version: '1.1.0', new_version: '1.2.0', new_version_advisories: [mark(regression)] },
    ]);
  });
});

describe('global packages (--global)', () => {
  it('list marks the installed versions an advisory affects; update prefers a version none affects and marks it', async () => {
    // Global packages need no project: run from a folder that is not one.
    const deps = await testDeps({ env: { PKG_REGISTRY: registry.url } });
    const installed = await run(deps, ['install', '--global', `${LIB}@1.0.0`, `${PLAIN}@1.0.0`]);
    expect(installed.stderr).toBe('');
    expect(installed.code).toBe(0);

    const json = await run(deps, ['list', '--global', '--json']);
    expect(json.stderr).toBe('');
    const byName = Object.fromEntries((JSON.parse(json.stdout).packages as { package: string }[]).map((p) => [p.package, p]));
    expect(byName[LIB]).toMatchObject({ resolved: '1.0.0', advisories: [mark(crash)] });
    expect(byName[PLAIN]).not.toHaveProperty('advisories');
    const text = await run(deps, ['list', '--global']);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(
      [
        'Affected by Advisories:',
        `  ${LIB}@1.0.0`,
        '    HIGH  CVE-2026-7  Crash on load (affects <1.1.0, fixed in >=1.1.0)',
      ].join('\n'),
    );

    // 1.2.0 is newer, but the regression affects it: 1.1.0 fixes the crash and has no known flaw.
    const preview = await run(deps, ['update', '--global', LIB, '--dry-run', '--json']);
    expect(preview.stderr).toBe('');
    expect(JSON.parse(preview.stdout).updated).toEqual([
      { package: LIB, old_version: '1.0.0', new_version: '1.1.0', advisories: [mark(crash)] },
    ]);
    const updated = await run(deps, ['update', '--global', LIB]);
    expect(updated.code).toBe(0);
    expect(updated.stdout).toContain(`${LIB}@1.0.0 → 1.1.0: 1.1.0 is not affected`);
    const after = JSON.parse((await run(deps, ['list', '--global', '--json'])).stdout);
    expect(after.packages.find((p: { package: string }) => p.package === LIB)).not.toHaveProperty('advisories');
  });
});

describe('pkg audit of packages a registry serves from its uplink', () => {
  const PROXIED = 'com.upstream.loader';
  let upstream: TestRegistry;
  let downstream: TestRegistry;
  let upstreamClosed = false;

  beforeAll(async () => {
    upstream = await startRegistry();
    const token = await loginUser(upstream.url, 'vendor');
    for (const version of ['1.0.0', '1.0.1', '1.1.0'])
      expect((await publishVersion(upstream.url, token, PROXIED, version, { manifest: { unity: '2021.3' } })).status).toBe(201);
    const res = await request(`${upstream.url}/-/pkg/v1/advisories/${PROXIED}`, { method: 'POST', token, body: crash });
    expect(res.status).toBe(201);
    downstream = await startRegistry({
      settings: {
        uplinks: JSON.stringify([{ name: 'vendor', url: upstream.url, packages: ['com.upstream.*'], maxAge: 3600, timeout: 5 }]),
      },
    });
  });
  afterAll(async () => {
    await downstream?.close();
    if (!upstreamClosed) await upstream?.close();
  });

  const project = (version: string) =>
    projectWith(downstream, {
      'Packages/manifest.json': {
        dependencies: { [PROXIED]: version },
        scopedRegistries: [{ name: 'studio', url: downstream.url, scopes: ['com.upstream'] }],
      },
    });

  it("reports the upstream's advisories; with the upstream down, what was cached, and a warning for the rest", async () => {
    const { deps } = await project('1.0.0');
    const found = await run(deps, ['audit', '--json']);
    expect(found.stderr).toBe('');
    expect(found.code).toBe(1);
    expect(JSON.parse(found.stdout).vulnerabilities).toMatchObject([
      { package: PROXIED, version: '1.0.0', fix: '1.1.0', advisories: [{ id: 'CVE-2026-7', severity: 'high' }] },
    ]);

    await upstream.close();
    upstreamClosed = true;
    const cached = await run(deps, ['audit', '--json']);
    expect(cached.code).toBe(1);
    expect(JSON.parse(cached.stdout).vulnerabilities).toMatchObject([{ package: PROXIED, advisories: [{ id: 'CVE-2026-7' }] }]);

    const other = await project('1.0.1');
    const unknown = await run(other.deps, ['audit']);
    expect(unknown.code).toBe(0);
    expect(unknown.stderr).toMatch(
      new RegExp(
        `^Warning: ${downstream.url.replace(/[.:/]/g, '\\$&')}: The upstream registry 'vendor' could not be asked for advisories`,
      ),
    );
  });
});
