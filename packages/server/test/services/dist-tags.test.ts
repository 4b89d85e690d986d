/**
 * Dist-tags as a service on memory storage: the rules of the change, and the document cache of
 * the package reads dropping its copy when the change is announced on the bus.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { createMemoryStorage, loadConfig, serverDeps, type Storage } from '@pkg/server';
import { buildStoredPackage, seedPackage } from '@pkg/testkit';
import type { Caller } from '../../src/context.js';
import { createServices, type Services } from '../../src/services/services.js';

const NAME = 'com.acme.tagged';
const ada: Caller = { user: 'ada', tokenHash: 'a'.repeat(64), readonly: false };
const eve: Caller = { user: 'eve', tokenHash: 'e'.repeat(64), readonly: false };
const scope = { tenant: '', tarballBaseUrl: 'http://registry.test' };

let storage: Storage;
let services: Services;

beforeEach(async () => {
  storage = createMemoryStorage();
  services = createServices(serverDeps(loadConfig({ flags: {}, env: {} }), storage));
  await seedPackage(storage, buildStoredPackage(NAME, { versions: ['1.0.0', '1.1.0', '2.0.0-beta.1'], maintainers: ['ada'] }));
});

async function documentTags(): Promise<Record<string, string>> {
  const representation = await services.packageReads.document(scope, NAME, 'full');
  return (JSON.parse(representation.body.toString('utf8')) as { 'dist-tags': Record<string, string> })['dist-tags'];
}

describe('DistTagService on memory storage', () => {
  it('points a tag at a version, and the served document shows it at once', async () => {
    expect(await documentTags()).toEqual({ latest: '2.0.0-beta.1' });
    await services.distTags.set('', ada, NAME, 'stable', '1.1.0');
    expect(await services.distTags.list('', NAME)).toEqual({ latest: '2.0.0-beta.1', stable: '1.1.0' });
    expect(await documentTags()).toEqual({ latest: '2.0.0-beta.1', stable: '1.1.0' });
    await services.distTags.remove('', ada, NAME, 'stable');
    expect(await documentTags()).toEqual({ latest: '2.0.0-beta.1' });
  });

  it('refuses what the rules refuse, and changes nothing', async () => {
    const before = await storage.packages.package('', NAME).read();
    await expect(services.distTags.set('', eve, NAME, 'stable', '1.1.0')).rejects.toMatchObject({ status: 403 });
    await expect(services.distTags.set('', ada, NAME, 'stable', '9.9.9')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(services.distTags.set('', ada, NAME, 'stable', 'nope')).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
    await expect(services.distTags.set('', ada, NAME, 'stable', 7)).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    await expect(services.distTags.remove('', ada, NAME, 'latest')).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
    await expect(services.distTags.remove('', ada, NAME, 'missing')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(services.distTags.list('', 'com.acme.absent')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(await storage.packages.package('', NAME).read()).toEqual(before);
  });
});
