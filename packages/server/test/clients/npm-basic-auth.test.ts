import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  NpmClient,
  expectSuccess,
  loginUser,
  publishFixtures,
  startRegistry,
  systemNpmCli,
  type TestRegistry,
} from '@pkg/testkit';

/**
 * The real npm with `_auth` (base64 of name:password) in its .npmrc, as older setups and CI
 * configurations have it, against a registry that needs a credential for every read.
 */
let registry: TestRegistry;
let npm: NpmClient;

beforeAll(async () => {
  registry = await startRegistry({ settings: { readAccess: 'token' } });
  const token = await loginUser(registry.url, 'carol', 'carol: the password');
  await publishFixtures(registry.url, token, { 'com.acme.basic': [{ version: '1.0.0' }] });
  npm = await NpmClient.create(systemNpmCli(), registry.url);
});
afterAll(async () => {
  await npm?.cleanup();
  await registry?.close();
});

async function useAuth(password: string): Promise<void> {
  const host = new URL(registry.url).host;
  const auth = Buffer.from(`carol:${password}`).toString('base64');
  await writeFile(path.join(npm.root, 'home', '.npmrc'), `//${host}/:_auth=${auth}\n`);
}

describe('npm with _auth', () => {
  it('whoami, view and install work with the right name and password', async () => {
    await useAuth('carol: the password');
    expect(expectSuccess(await npm.run(['whoami']), 'npm whoami').stdout.trim()).toBe('carol');
    expect(expectSuccess(await npm.run(['view', 'com.acme.basic', 'version']), 'npm view').stdout.trim()).toBe('1.0.0');
    const project = await npm.dir('consumer', { name: 'consumer', version: '1.0.0', private: true });
    expectSuccess(await npm.run(['install', 'com.acme.basic@1.0.0'], { cwd: project }), 'npm install');
    const installed = JSON.parse(await readFile(path.join(project, 'node_modules', 'com.acme.basic', 'package.json'), 'utf8'));
    expect(installed.version).toBe('1.0.0');
  });

  it('fails with a wrong password, and npm says the registry refused it', async () => {
    await useAuth('not the password');
    const view = await npm.run(['view', 'com.acme.basic', 'version']);
    expect(view.code).not.toBe(0);
    expect(view.stderr).toMatch(/E401|Invalid credentials/);
  });
});
