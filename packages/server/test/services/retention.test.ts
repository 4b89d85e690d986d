import { describe, expect, it } from 'vitest';
import { loginUser, publishVersion, request, startRegistry } from '@pkg/testkit';
import { RetentionService } from '../../src/services/retention.js';

describe('RetentionService: the age rule', () => {
  it('drops untagged pre-releases older than the limit, keeps young ones, releases and tagged ones', async () => {
    let clock = new Date('2026-01-01T00:00:00Z');
    const registry = await startRegistry({ now: () => clock });
    try {
      const token = await loginUser(registry.url, 'alice');
      expect((await publishVersion(registry.url, token, 'com.example.aged', '1.0.0')).status).toBe(201);
      expect((await publishVersion(registry.url, token, 'com.example.aged', '2.0.0-rc.1', { tag: 'rc' })).status).toBe(201);
      expect((await publishVersion(registry.url, token, 'com.example.aged', '2.0.0-rc.2', { tag: 'rc' })).status).toBe(201);
      clock = new Date('2026-03-01T00:00:00Z');
      expect((await publishVersion(registry.url, token, 'com.example.aged', '2.0.0-rc.3', { tag: 'next' })).status).toBe(201);
      clock = new Date('2026-03-10T00:00:00Z');

      const service = new RetentionService({ ...registry.storage, now: () => clock });
      const rules = { prereleaseMaxAgeDays: 30 };
      const planned = await service.plan('', rules);
      // rc.2 is named by `rc`; rc.3 is young; 1.0.0 is a release.
      expect(planned).toEqual([
        { tenant: '', name: 'com.example.aged', version: '2.0.0-rc.1', reason: 'older than the pre-release age limit' },
      ]);
      expect(await service.apply('', rules)).toEqual(planned);
      expect(await service.plan('', rules)).toEqual([]);
      const doc = await request(`${registry.url}/com.example.aged`);
      expect(Object.keys(doc.body.versions).sort()).toEqual(['1.0.0', '2.0.0-rc.2', '2.0.0-rc.3']);
    } finally {
      await registry.close();
    }
  });
});
