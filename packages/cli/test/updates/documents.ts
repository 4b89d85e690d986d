import type { PackageDocument, VersionRecord } from '@pkg/protocol';
import { unityEngine } from '../../src/engines/unity/unity-engine.js';
import type { PlanContext } from '../../src/updates/plan-context.js';

export interface VersionSpec {
  v: string;
  unity?: string;
  unityRelease?: string;
  deps?: Record<string, string>;
  deprecated?: string;
}

/** A registry document with the given versions (a bare string is a version with no fields). */
export function doc(name: string, versions: (string | VersionSpec)[], tags: Record<string, string> = {}): PackageDocument {
  const records: Record<string, VersionRecord> = {};
  for (const entry of versions) {
    const spec = typeof entry === 'string' ? { v: entry } : entry;
    records[spec.v] = {
      name,
      version: spec.v,
      ...(spec.unity ? { unity: spec.unity } : {}),
      ...(spec.unityRelease ? { unityRelease: spec.unityRelease } : {}),
      ...(spec.deps ? { dependencies: spec.deps } : {}),
      ...(spec.deprecated ? { deprecated: spec.deprecated } : {}),
      dist: { tarball: `http://registry.test/${name}/-/${name}-${spec.v}.tgz`, integrity: 'sha512-x', shasum: 'x' },
    };
  }
  const last = Object.keys(records).at(-1);
  return {
    _id: name,
    _rev: '1-x',
    name,
    'dist-tags': { ...(last ? { latest: last } : {}), ...tags },
    versions: records,
    time: {},
    maintainers: [],
  };
}

/** A plan context over these documents, Unity's rules and an editor version (null: unknown). */
export function context(
  documents: PackageDocument[],
  options: { notInRegistry?: string[]; editor?: string | null } = {},
): PlanContext {
  const map = new Map<string, PackageDocument | null>(documents.map((d) => [d.name, d]));
  for (const name of options.notInRegistry ?? []) map.set(name, null);
  const version = { text: options.editor === undefined ? '2022.3.10f1' : options.editor };
  return {
    documents: map,
    isCompatible: (record) => unityEngine.isCompatible(record, version),
    isBuiltIn: (name) => unityEngine.isBuiltIn(name),
    requirementOf: (record) => unityEngine.requirementOf(record),
  };
}
