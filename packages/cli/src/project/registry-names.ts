/**
 * The names of the `scopedRegistries` entries `pkg` creates: what each registry calls itself
 * (`GET /-/pkg/registry`), else its host with the port. Entries that exist keep their names.
 */
import type { ScopedRegistry } from '../engines/engine.js';
import { sameRegistryUrl } from '../engines/registry-url.js';
import type { ProjectRegistries } from './project-registries.js';

export async function nameNewEntries(
  changed: readonly ScopedRegistry[],
  existing: readonly ScopedRegistry[],
  registries: ProjectRegistries,
): Promise<ScopedRegistry[]> {
  return Promise.all(
    changed.map(async (entry) => {
      if (entry.scopes.length === 0 || existing.some((e) => sameRegistryUrl(e.url, entry.url))) return entry;
      const name = await (await registries.set.client(entry.url)).registryName();
      return name === undefined ? entry : { ...entry, name };
    }),
  );
}
