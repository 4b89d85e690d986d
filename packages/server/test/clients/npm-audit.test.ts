import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  npmLines,
  NpmClient,
  cliVersion,
  expectSuccess,
  loginUser,
  publishVersion,
  request,
  startRegistry,
  systemNpmCli,
  type TestRegistry,
} from '@pkg/testkit';

/**
 * `npm audit` of npm 11 and npm 10 against a project installed from the registry: the bulk
 * advisory endpoint answers from the advisories the package's owners published; a withdrawn one
 * no longer counts; the quick-audit endpoint npm falls back to answers the same.
 */
const LIB = 'com.acme.vulnerable';
const APP = 'com.acme.app-using-it';
let registry: TestRegistry;
let owner: string;

beforeAll(async () => {
  registry = await startRegistry();
  owner = await loginUser(registry.url, 'owner');
  for (const version of ['1.0.0', '1.1.0', '1.2.0'])
    expect((await publishVersion(registry.url, owner, LIB, version)).status).toBe(201);
  const app = await publishVersion(registry.url, owner, APP, '1.0.0', { manifest: { dependencies: { [LIB]: '1.1.0' } } });
  expect(app.status).toBe(201);
  const published = await request(`${registry.url}/-/pkg/v1/advisories/${LIB}`, {
    method: 'POST',
    token: owner,
    body: {
      id: 'CVE-2026-0001',
      severity: 'high',
      vulnerable_versions: '<1.2.0',
      patched_versions: '>=1.2.0',
      title: 'Save files can be read by other players',
      url: 'https://example.com/advisories/CVE-2026-0001',
    },
  });
  expect(published.status).toBe(201);
});
afterAll(async () => {
  await registry.close();
});

const clients = npmLines();

describe.each(clients)('$label', ({ label, major, cli }) => {
  let npm: NpmClient;
  let project: string;

  beforeAll(async () => {
    expect(Number(cliVersion(cli()).split('.')[0]), `${label} version`).toBe(major);
    npm = await NpmClient.create(cli(), registry.url);
    project = await npm.dir('project', { name: 'project', version: '1.0.0', private: true });
    expectSuccess(await npm.run(['install', `${APP}@1.0.0`], { cwd: project }), 'npm install');
  });
  afterAll(async () => {
    await npm?.cleanup();
  });

  it('reports the advisory of the installed dependency, with its fix, and exits non-zero', async () => {
    const audit = await npm.run(['audit', '--json'], { cwd: project });
    expect(audit.code, audit.stderr).toBe(1);
    const report = JSON.parse(audit.stdout);
    // The dependency, and the installed package that depends on its vulnerable versions.
    expect(report.metadata.vulnerabilities).toMatchObject({ high: 2, total: 2 });
    expect(report.vulnerabilities[APP]).toMatchObject({ isDirect: true, via: [LIB], fixAvailable: false });
    expect(report.vulnerabilities[LIB]).toMatchObject({
      name: LIB,
      severity: 'high',
      isDirect: false,
      range: '<1.2.0',
      via: [
        {
          source: 'CVE-2026-0001',
          name: LIB,
          title: 'Save files can be read by other players',
          url: 'https://example.com/advisories/CVE-2026-0001',
          severity: 'high',
          range: '<1.2.0',
        },
      ],
    });
    const text = await npm.run(['audit'], { cwd: project });
    expect(text.stdout).toContain('Save files can be read by other players');
    expect(text.code).toBe(1);
    expect(text.stdout).toContain('2 high severity vulnerabilities');
  });

  it('answers the quick-audit request npm falls back to in the same way', async () => {
    const lock = JSON.parse(await import('node:fs/promises').then((fs) => fs.readFile(`${project}/package-lock.json`, 'utf8')));
    const res = await request(`${registry.url}/-/npm/v1/security/audits/quick`, { method: 'POST', body: lock });
    expect(res.status).toBe(200);
    expect(res.body.advisories[`${LIB}:CVE-2026-0001`]).toMatchObject({
      id: 'CVE-2026-0001',
      module_name: LIB,
      severity: 'high',
      vulnerable_versions: '<1.2.0',
      patched_versions: '>=1.2.0',
      findings: [{ version: '1.1.0', paths: [LIB] }],
    });
    expect(res.body.metadata.vulnerabilities.high).toBe(1);
  });
});

describe('a withdrawn advisory', () => {
  it('no longer counts for npm audit', async () => {
    const npm = await NpmClient.create(systemNpmCli(), registry.url);
    try {
      const project = await npm.dir('withdrawn', { name: 'withdrawn', version: '1.0.0', private: true });
      expectSuccess(await npm.run(['install', `${LIB}@1.0.0`], { cwd: project }), 'npm install');
      const withdraw = await request(`${registry.url}/-/pkg/v1/advisories/${LIB}/CVE-2026-0001`, {
        method: 'DELETE',
        token: owner,
      });
      expect(withdraw.status).toBe(200);
      expect(withdraw.body.withdrawn).toEqual(expect.any(String));
      const audit = expectSuccess(await npm.run(['audit', '--json'], { cwd: project }), 'npm audit');
      expect(JSON.parse(audit.stdout).metadata.vulnerabilities.total).toBe(0);
    } finally {
      await npm.cleanup();
    }
  });
});

describe('a package that comes through an uplink (npm 11)', () => {
  const PROXIED = 'com.upstream.loader';
  let upstream: TestRegistry;
  let downstream: TestRegistry;
  let upstreamClosed = false;
  let npm: NpmClient;

  beforeAll(async () => {
    upstream = await startRegistry();
    const vendor = await loginUser(upstream.url, 'vendor');
    for (const version of ['1.0.0', '1.0.1', '1.2.0'])
      expect((await publishVersion(upstream.url, vendor, PROXIED, version)).status).toBe(201);
    const published = await request(`${upstream.url}/-/pkg/v1/advisories/${PROXIED}`, {
      method: 'POST',
      token: vendor,
      body: { id: 'CVE-2026-0100', severity: 'critical', vulnerable_versions: '<1.2.0', title: 'Level files run code' },
    });
    expect(published.status).toBe(201);
    downstream = await startRegistry({
      settings: {
        uplinks: JSON.stringify([{ name: 'vendor', url: upstream.url, packages: ['com.upstream.*'], maxAge: 3600, timeout: 5 }]),
      },
    });
    npm = await NpmClient.create(systemNpmCli(), downstream.url);
  });
  afterAll(async () => {
    await npm?.cleanup();
    await downstream?.close();
    if (!upstreamClosed) await upstream?.close();
  });

  it("reports the upstream's advisory; while the upstream is down, what was cached, and a notice for the rest", async () => {
    const first = await npm.dir('first', { name: 'first', version: '1.0.0', private: true });
    expectSuccess(await npm.run(['install', `${PROXIED}@1.0.0`], { cwd: first }), 'npm install');
    const second = await npm.dir('second', { name: 'second', version: '1.0.0', private: true });
    expectSuccess(await npm.run(['install', `${PROXIED}@1.0.1`], { cwd: second }), 'npm install');

    const audit = await npm.run(['audit', '--json'], { cwd: first });
    expect(audit.code, audit.stderr).toBe(1);
    expect(JSON.parse(audit.stdout).vulnerabilities[PROXIED]).toMatchObject({
      severity: 'critical',
      via: [{ source: 'CVE-2026-0100', title: 'Level files run code', range: '<1.2.0' }],
    });

    await upstream.close();
    upstreamClosed = true;
    const cached = await npm.run(['audit', '--json'], { cwd: first });
    expect(cached.code, cached.stderr).toBe(1);
    expect(JSON.parse(cached.stdout).metadata.vulnerabilities.critical).toBe(1);
    // Never asked about before the upstream went down: audited locally, and npm prints the registry's notice.
    const unknown = await npm.run(['audit'], { cwd: second });
    expect(unknown.code, unknown.stderr).toBe(0);
    expect(unknown.stderr).toContain("The upstream registry 'vendor' could not be asked for advisories");
  });
});
