import { describe, expect, it } from 'vitest';
import { OTHER_TENANTS, StorageFigureSource } from '../../src/observability/storage-figures.js';
import { RegistryMetrics } from '../../src/observability/metrics.js';
import { MemoryDatabase, MemoryMetadataStore } from '../../src/storage/drivers/memory/memory-metadata-store.js';
import { MemoryStorageUsage } from '../../src/storage/drivers/memory/memory-storage-usage.js';
import { addVersion } from '../contract/metadata-fixtures.js';

/** `count` tenants, tenant i holding one package of i + 1 bytes. */
async function usageOf(count: number): Promise<MemoryStorageUsage> {
  const usage = new MemoryStorageUsage();
  const store = new MemoryMetadataStore(new MemoryDatabase(), [usage.writeHook]);
  for (let i = 0; i < count; i++) {
    const tenant = `t${i}`;
    await store.accounts.tenants.create({
      name: tenant,
      incarnation: tenant,
      createdAt: '2026-01-01T00:00:00.000Z',
      settings: {},
    });
    await store.package(tenant, 'com.a.b').update((current) => ({
      next: { ...addVersion(current, 'com.a.b', '1.0.0'), usage: { added: { '1.0.0': { bytes: i + 1, files: 1 } } } },
      result: undefined,
    }));
  }
  return usage;
}

describe('storage figures in /-/metrics', () => {
  it('gives the largest registries their own series and sums the rest, whatever the number of tenants', async () => {
    const figures = await new StorageFigureSource(await usageOf(1000), { maxTenants: 3 }).read();
    expect(figures.registries.map((r) => r.tenant)).toEqual(['t999', 't998', 't997', OTHER_TENANTS]);
    const sum = (n: number) => (n * (n + 1)) / 2;
    expect(figures.registries[3]!.usage).toEqual({ bytes: sum(997), files: 997, packages: 997 });
    expect(figures.total).toEqual({ bytes: sum(1000), files: 1000, packages: 1000 });
    expect(figures.registryCount).toBe(1000);

    const metrics = new RegistryMetrics();
    const source = new StorageFigureSource(await usageOf(1000));
    metrics.setSources({ storageFigures: () => source.read() });
    const { body } = await metrics.render();
    const series = body.split('\n').filter((line) => line.startsWith('pkg_registry_storage_bytes{'));
    expect(series).toHaveLength(101);
    expect(series).toContain('pkg_registry_storage_bytes{tenant="t999"} 1000');
    expect(series).toContain(`pkg_registry_storage_bytes{tenant="(other)"} ${sum(900)}`);
    expect(body).toContain('pkg_registry_storage_registries 1000');
    // No collection yet.
    expect(body).toMatch(/^pkg_registry_storage_collect_last_timestamp_seconds 0$/m);
    expect(body).not.toContain('pkg_registry_storage_collect_last_removed{');
  });
});
