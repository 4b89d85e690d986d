import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  NpmClient,
  expectSuccess,
  loginUser,
  publishVersion,
  startRegistry,
  systemNpmCli,
  type TestRegistry,
} from '@pkg/testkit';

/**
 * A team's namespace with the real npm: `npm publish` of a new package there by someone outside
 * the team prints the registry's reason, naming the team; `npm owner add` still lets a
 * package's owners bring in a publisher from outside.
 */
let registry: TestRegistry;
let npm: NpmClient;
let alice: string;
let eve: string;

beforeAll(async () => {
  registry = await startRegistry();
  alice = await loginUser(registry.url, 'alice');
  eve = await loginUser(registry.url, 'eve');
  await registry.storage.teams.create('', 'studio', new Date().toISOString(), ['alice']);
  await registry.storage.teams.claim('', 'studio', 'com.studio.*');
  expect((await publishVersion(registry.url, alice, 'com.studio.tool', '1.0.0')).status).toBe(201);
  npm = await NpmClient.create(systemNpmCli(), registry.url);
});
afterAll(async () => {
  await npm?.cleanup();
  await registry?.close();
});

async function useToken(token: string): Promise<void> {
  await writeFile(path.join(npm.root, 'home', '.npmrc'), `//${new URL(registry.url).host}/:_authToken=${token}\n`);
}

describe('npm in a team namespace', () => {
  it('prints why a new package is refused to a user outside the team, and publishes nothing', async () => {
    await useToken(eve);
    const dir = await npm.dir('game', { name: 'com.studio.game', version: '1.0.0' });
    const result = await npm.run(['publish'], { cwd: dir });
    expect(result.code, result.stdout + result.stderr).not.toBe(0);
    expect(result.stderr).toContain(
      "'com.studio.game' is in the namespace 'com.studio.*' of team 'studio': only its members and administrators may publish new packages there",
    );
    expect(await registry.storage.packages.package('', 'com.studio.game').read()).toBeUndefined();
  });

  it('npm owner add lets an outside publisher publish new versions of that package', async () => {
    await useToken(alice);
    expectSuccess(await npm.run(['owner', 'add', 'eve', 'com.studio.tool']), 'npm owner add');
    await useToken(eve);
    const dir = await npm.dir('tool', { name: 'com.studio.tool', version: '1.1.0' });
    expectSuccess(await npm.run(['publish'], { cwd: dir }), 'npm publish by the new owner');
    const stored = await registry.storage.packages.package('', 'com.studio.tool').read();
    expect(Object.keys(stored!.document.versions)).toEqual(['1.0.0', '1.1.0']);
  });
});
