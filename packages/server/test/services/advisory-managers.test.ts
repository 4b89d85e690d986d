/**
 * Who manages a package's advisories, as a service on memory storage: its maintainers and the
 * registry's administrators (answered by the one seam, administrators.ts), nobody else; a
 * refusal says who may.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { createMemoryStorage, loadConfig, serverDeps, type Storage } from '@pkg/server';
import { buildStoredPackage, seedPackage } from '@pkg/testkit';
import type { Caller } from '../../src/context.js';
import { AdvisoryService } from '../../src/services/advisories.js';
import { isAdministrator } from '../../src/services/administrators.js';

const NAME = 'com.acme.advised';
const caller = (user: string): Caller => ({ user, tokenHash: user[0]!.repeat(64), readonly: false });
const advisory = { severity: 'high', vulnerable_versions: '<1.1.0', title: 'Flaw' };

let storage: Storage;
let service: AdvisoryService;

beforeEach(async () => {
  storage = createMemoryStorage();
  const deps = serverDeps(loadConfig({ flags: {}, env: {} }), storage);
  // The registry's administrators: the accounts' role answers this in the running server.
  service = new AdvisoryService(deps, { isAdministrator: async (tenant, user) => tenant === '' && user === 'root' });
  await seedPackage(storage, buildStoredPackage(NAME, { versions: ['1.0.0', '1.1.0'], maintainers: ['ada'] }));
});

describe('who manages advisories', () => {
  it('lets a maintainer and an administrator publish and withdraw', async () => {
    const byMaintainer = await service.publish('', caller('ada'), NAME, { ...advisory, id: 'A-1' });
    const byAdmin = await service.publish('', caller('root'), NAME, { ...advisory, id: 'A-2' });
    expect(byAdmin.advisory.publishedBy).toBe('root');
    expect((await service.withdraw('', caller('root'), NAME, byMaintainer.advisory.id)).withdrawnAt).not.toBeNull();
    expect((await service.withdraw('', caller('ada'), NAME, 'A-2')).withdrawnAt).not.toBeNull();
  });

  it('refuses anybody else, saying who may, and changes nothing', async () => {
    await service.publish('', caller('ada'), NAME, { ...advisory, id: 'A-1' });
    const before = await storage.advisories.list('', NAME);
    const refusal = {
      status: 403,
      details: `Only the maintainers of '${NAME}' and this registry's administrators may publish or withdraw its advisories; 'eve' is neither`,
    };
    await expect(service.publish('', caller('eve'), NAME, advisory)).rejects.toMatchObject(refusal);
    await expect(service.withdraw('', caller('eve'), NAME, 'A-1')).rejects.toMatchObject(refusal);
    await expect(service.publish('', { ...caller('ada'), readonly: true }, NAME, advisory)).rejects.toMatchObject({
      status: 403,
    });
    expect(await storage.advisories.list('', NAME)).toEqual(before);
  });

  it('has no administrators until the account store has the role', async () => {
    expect(await isAdministrator(storage.registry.users, '', 'root')).toBe(false);
  });
});
