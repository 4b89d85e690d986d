import type { PackageDocument, VersionRecord } from '@pkg/protocol';
import type { Engine } from '../../src/engines/engine.js';
import { unityEngine } from '../../src/engines/unity/unity-engine.js';
import type { PlanContext } from '../../src/resolve/plan-context.js';

export interface VersionSpec {
  v: string;
  unity?: string;
  unityRelease?: string;
  godot?: string;
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
      ...(spec.godot ? { godot: spec.godot } : {}),
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

/** A plan context over these documents, an engine's rules (Unity's unless named) and its version (null: unknown). */
export function context(
  documents: PackageDocument[],
  options: { notInRegistry?: string[]; editor?: string | null; engine?: Engine } = {},
): PlanContext {
  const engine = options.engine ?? unityEngine;
  const map = new Map<string, PackageDocument | null>(documents.map((d) => [d.name, d]));
  for (const name of options.notInRegistry ?? []) map.set(name, null);
  const version = { text: options.editor === undefined ? '2022.3.10f1' : options.editor };
  return {
    documents: map,
    isCompatible: (record) => engine.isCompatible(record, version),
    isBuiltIn: (name) => engine.isBuiltIn(name),
    requirementOf: (record) => engine.requirementOf(record),
  };
}
