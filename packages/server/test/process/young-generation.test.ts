import { afterEach, describe, expect, it } from 'vitest';
import { request, spawnRegistry, type SpawnedRegistry } from '@pkg/testkit';

// Spawns the built binary (run `npm run build` first): the bound is applied by the process that
// serves, from its first module load on, which an in-process server cannot show.
const MiB = 1024 * 1024;

let server: SpawnedRegistry | undefined;
afterEach(async () => {
  await server?.cleanup();
  server = undefined;
});

/** The young generation's size now, as /-/metrics reports V8's new space (both semi-spaces). */
async function youngGenerationBytes(url: string): Promise<number> {
  const metrics = await request(`${url}/-/metrics`);
  expect(metrics.status).toBe(200);
  const line = metrics.text.split('\n').find((l) => l.startsWith('pkg_registry_nodejs_heap_space_size_total_bytes{space="new"}'));
  expect(line).toBeDefined();
  return Number(line!.split(' ').pop());
}

/** Work whose objects outlive several collections (remembered 404s, search pages), so V8 wants a larger space. */
async function load(url: string): Promise<void> {
  for (let round = 0; round < 40; round++) {
    await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        i % 2 === 0
          ? request(`${url}/com.example.missing-${round}-${i}-${'x'.repeat(100)}`)
          : request(`${url}/-/v1/search?text=missing-${round}-${i}&size=20`),
      ),
    );
  }
}

describe("youngGeneration bounds V8's young generation in the serving process", () => {
  it('keeps it within the setting under load', async () => {
    // V8's starting size: held there, however much the load would make it grow.
    server = await spawnRegistry({ args: ['--young-generation', String(2 * MiB), '--rate-limit-anonymous', '100000'] });
    await load(server.url);
    const bytes = await youngGenerationBytes(server.url);
    expect(bytes).toBeGreaterThan(0);
    expect(bytes).toBeLessThanOrEqual(2 * MiB);
  });

  it('leaves it to V8 with 0, which grows it past that bound under the same load', async () => {
    server = await spawnRegistry({ args: ['--young-generation', '0', '--rate-limit-anonymous', '100000'] });
    await load(server.url);
    expect(await youngGenerationBytes(server.url)).toBeGreaterThan(2 * MiB);
  });
});
