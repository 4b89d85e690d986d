import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  expectSuccess,
  loginUser,
  pnpmInstall,
  publishVersion,
  request,
  startRegistry,
  yarnInstall,
  type InstallRun,
  type TestRegistry,
} from '@pkg/testkit';

/**
 * pnpm 10 and yarn 4 install a published package that has a dependency. The registry's clock
 * is set two days back: yarn 4 quarantines versions younger than a day by their
 * `time[<version>]`, so this also proves that publish times are served.
 */
const BASE = 'com.acme.base';
const APP = 'com.acme.app';
let registry: TestRegistry;
const runs: InstallRun[] = [];

beforeAll(async () => {
  const twoDaysAgo = Date.now() - 2 * 24 * 3600 * 1000;
  registry = await startRegistry({ now: () => new Date(twoDaysAgo) });
  const token = await loginUser(registry.url, 'publisher');
  for (const version of ['1.0.0', '1.2.0']) {
    expect((await publishVersion(registry.url, token, BASE, version, { manifest: { unity: '2021.3' } })).status).toBe(201);
  }
  const app = await publishVersion(registry.url, token, APP, '2.0.0', { manifest: { dependencies: { [BASE]: '^1.0.0' } } });
  expect(app.status).toBe(201);
});
afterAll(async () => {
  for (const run of runs) await run.cleanup();
  await registry.close();
});

async function integrityOf(name: string, version: string): Promise<string> {
  return (await request(`${registry.url}/${name}/${version}`)).body.dist.integrity;
}

async function installedVersion(dir: string, name: string): Promise<string> {
  return JSON.parse(await readFile(path.join(dir, 'node_modules', name, 'package.json'), 'utf8')).version;
}

describe('pnpm 10', () => {
  it('installs a package and its dependency, with the registry integrity in the lockfile', async () => {
    const run = await pnpmInstall(registry.url, { [APP]: '^2.0.0' });
    runs.push(run);
    expectSuccess(run.result, 'pnpm install');
    expect(await installedVersion(run.dir, APP)).toBe('2.0.0');
    const lock = await readFile(path.join(run.dir, 'pnpm-lock.yaml'), 'utf8');
    expect(lock).toContain(`${BASE}@1.2.0`);
    expect(lock).toContain(await integrityOf(APP, '2.0.0'));
    expect(lock).toContain(await integrityOf(BASE, '1.2.0'));
  });
});

describe('yarn 4', () => {
  it('installs a package and its dependency (publish times present, so nothing is quarantined)', async () => {
    const run = await yarnInstall(registry.url, { [APP]: '^2.0.0' });
    runs.push(run);
    expectSuccess(run.result, 'yarn install');
    expect(await installedVersion(run.dir, APP)).toBe('2.0.0');
    expect(await installedVersion(run.dir, BASE)).toBe('1.2.0');
    const lock = await readFile(path.join(run.dir, 'yarn.lock'), 'utf8');
    expect(lock).toContain(`resolution: "${BASE}@npm:1.2.0"`);
    expect(lock).toContain(`resolution: "${APP}@npm:2.0.0"`);
  });
});
