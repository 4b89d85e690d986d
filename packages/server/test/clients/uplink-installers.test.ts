import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  NpmClient,
  expectSuccess,
  loginUser,
  pnpmInstall,
  publishVersion,
  request,
  startFaultProxy,
  startRegistry,
  systemNpmCli,
  yarnInstall,
  type FaultProxy,
  type InstallRun,
  type TestRegistry,
} from '@pkg/testkit';

/**
 * npm, pnpm and yarn install packages of another registry of ours through this one (an uplink,
 * behind a proxy), then keep installing what was cached with the upstream stopped, from this
 * node and from a second node on the same storage. The upstream's clock is two days back:
 * yarn 4 quarantines versions younger than a day.
 */
const BASE = 'com.upstream.base';
const APP = 'com.upstream.app';
const NEVER = 'com.upstream.never';

let upstream: TestRegistry;
let upstreamRunning = true;
let proxy: FaultProxy;
let downstream: TestRegistry;
const runs: InstallRun[] = [];
const npms: NpmClient[] = [];
// maxAge 0: every request revalidates, so with the upstream stopped each document is served stale.
const settings = () => ({
  uplinks: JSON.stringify([{ name: 'team-upstream', url: proxy.url, packages: ['com.upstream.*'], maxAge: 0, timeout: 5 }]),
});

beforeAll(async () => {
  const twoDaysAgo = Date.now() - 2 * 24 * 3600 * 1000;
  upstream = await startRegistry({ now: () => new Date(twoDaysAgo) });
  const token = await loginUser(upstream.url, 'publisher');
  for (const version of ['1.0.0', '1.2.0']) {
    expect((await publishVersion(upstream.url, token, BASE, version, { manifest: { unity: '2021.3' } })).status).toBe(201);
  }
  const app = await publishVersion(upstream.url, token, APP, '2.0.0', { manifest: { dependencies: { [BASE]: '^1.0.0' } } });
  expect(app.status).toBe(201);
  expect((await publishVersion(upstream.url, token, NEVER, '1.0.0')).status).toBe(201);
  proxy = await startFaultProxy(upstream.url);
  downstream = await startRegistry({ settings: settings() });
});
afterAll(async () => {
  for (const run of runs) await run.cleanup();
  for (const npm of npms) await npm.cleanup();
  await downstream?.close();
  await proxy?.close();
  if (upstreamRunning) await upstream?.close();
});

async function installedVersion(dir: string, name: string): Promise<string> {
  return JSON.parse(await readFile(path.join(dir, 'node_modules', name, 'package.json'), 'utf8')).version;
}

async function npmInstall(registry: string, spec: string) {
  const npm = await NpmClient.create(systemNpmCli(), registry);
  npms.push(npm);
  const project = await npm.dir('project', { name: 'project', version: '1.0.0', private: true });
  const result = await npm.run(['install', spec, '--prefer-online'], { cwd: project });
  return { project, result };
}

describe('through the downstream registry', () => {
  it('npm installs a covered package and its dependency, with the upstream integrity in the lockfile', async () => {
    const { project, result } = await npmInstall(downstream.url, `${APP}@^2.0.0`);
    expectSuccess(result, 'npm install');
    expect(await installedVersion(project, APP)).toBe('2.0.0');
    expect(await installedVersion(project, BASE)).toBe('1.2.0');
    const lock = JSON.parse(await readFile(path.join(project, 'package-lock.json'), 'utf8'));
    const upstreamIntegrity = (await request(`${upstream.url}/${APP}/2.0.0`)).body.dist.integrity;
    expect(lock.packages[`node_modules/${APP}`].integrity).toBe(upstreamIntegrity);
    expect(lock.packages[`node_modules/${APP}`].resolved).toBe(`${downstream.url}/${APP}/-/${APP}-2.0.0.tgz`);
  });

  it('pnpm installs it', async () => {
    const run = await pnpmInstall(downstream.url, { [APP]: '^2.0.0' });
    runs.push(run);
    expectSuccess(run.result, 'pnpm install');
    expect(await installedVersion(run.dir, APP)).toBe('2.0.0');
  });

  it('yarn installs it', async () => {
    const run = await yarnInstall(downstream.url, { [APP]: '^2.0.0' });
    runs.push(run);
    expectSuccess(run.result, 'yarn install');
    expect(await installedVersion(run.dir, APP)).toBe('2.0.0');
    expect(await installedVersion(run.dir, BASE)).toBe('1.2.0');
  });

  it('npm publish and npm deprecate of covered names get 403 (npm shows the error, not a 404)', async () => {
    const npm = await NpmClient.create(systemNpmCli(), downstream.url);
    npms.push(npm);
    expectSuccess(await npm.login('local-dev', 'local-password-1', 'dev@example.com'), 'npm login');
    const mine = await npm.dir('mine', { name: 'com.upstream.mine', version: '1.0.0' });
    const published = await npm.run(['publish'], { cwd: mine });
    expect(published.code).not.toBe(0);
    expect(published.stdout + published.stderr).toContain('E403');
    // Never fetched here: npm's ?write=true read is refused before anything is asked upstream.
    const deprecated = await npm.run(['deprecate', `${NEVER}@1.0.0`, 'do not use']);
    expect(deprecated.code).not.toBe(0);
    expect(deprecated.stdout + deprecated.stderr).toContain('E403');
    expect(deprecated.stdout + deprecated.stderr).not.toContain('E404');
    expect(proxy.count(`/${NEVER}`)).toBe(0);
  });

  it("lists the scope's cached packages the way the Unity Editor asks", async () => {
    const listing = await request(`${downstream.url}/-/v1/search?text=com.upstream&from=0&size=250`);
    expect(listing.status).toBe(200);
    expect(listing.headers.get('content-type')).toContain('application/json');
    const names = listing.body.objects.map((o: { package: { name: string } }) => o.package.name).sort();
    expect(names).toEqual([APP, BASE]);
    expect(listing.body.total).toBe(2);
    const base = listing.body.objects.find((o: { package: { name: string } }) => o.package.name === BASE);
    expect(base.package.version).toBe('1.2.0');
  });
});

describe('with the upstream stopped', () => {
  beforeAll(async () => {
    upstreamRunning = false;
    await upstream.close();
  });

  it('npm still installs what was cached (stale documents, stored tarballs)', async () => {
    const stale = await request(`${downstream.url}/${APP}`);
    expect(stale.status).toBe(200);
    expect(stale.headers.get('x-uplink-stale')).toBe('true');
    const { project, result } = await npmInstall(downstream.url, `${APP}@^2.0.0`);
    expectSuccess(result, 'npm install with the upstream stopped');
    expect(await installedVersion(project, BASE)).toBe('1.2.0');
  });

  it('a package never cached gets 503 with Retry-After, which npm reports as such', async () => {
    const answer = await request(`${downstream.url}/${NEVER}`);
    expect(answer.status).toBe(503);
    expect(answer.body.code).toBe('UPSTREAM_UNAVAILABLE');
    expect(Number(answer.headers.get('retry-after'))).toBeGreaterThan(0);
    const { result } = await npmInstall(downstream.url, NEVER);
    expect(result.code).not.toBe(0);
    expect(result.stdout + result.stderr).toContain('503');
    expect(result.stdout + result.stderr).not.toContain('E404');
  });

  it('a second node on the same storage installs what the first fetched', async () => {
    const second = await startRegistry({ dataDir: downstream.dataDir, settings: settings() });
    try {
      const { project, result } = await npmInstall(second.url, `${APP}@^2.0.0`);
      expectSuccess(result, 'npm install from the second node');
      expect(await installedVersion(project, APP)).toBe('2.0.0');
      const lock = JSON.parse(await readFile(path.join(project, 'package-lock.json'), 'utf8'));
      expect(lock.packages[`node_modules/${BASE}`].resolved).toBe(`${second.url}/${BASE}/-/${BASE}-1.2.0.tgz`);
    } finally {
      await second.close();
    }
  });
});
