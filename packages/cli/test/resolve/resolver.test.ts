/**
 * The one resolver: every command's intent resolved through one closure, and the scoped-registry
 * entries worked out from that closure (the steps before it, add-plan and update-plan, decide only
 * the manifest's own versions).
 */
import { describe, expect, it } from 'vitest';
import type { ScopedRegistry } from '../../src/engines/engine.js';
import type { PlanContext } from '../../src/resolve/plan-context.js';
import { resolve, type EngineRules, type Intent, type Resolution } from '../../src/resolve/resolver.js';
import { context, doc } from './documents.js';

const A = 'com.vendor.a';
const B = 'com.vendor.b';
const C = 'com.vendor.c';
const registryUrl = 'https://registry.example.com';
const label = 'Unity 2022.3.10f1';
const other: ScopedRegistry = { name: 'other', url: 'https://other.example.com', scopes: ['com.other'] };

function unity(entries: ScopedRegistry[] = []): EngineRules {
  return { engineLabel: label, closure: 'manifest-wins', scopes: { entries, entryFor: () => registryUrl } };
}

function resolved(deps: Record<string, string>, intent: Intent, ctx: PlanContext, rules: EngineRules): Resolution {
  const result = resolve(deps, intent, ctx, rules);
  if (result.kind !== 'plan') throw new Error(`needs ${result.names.join(', ')}`);
  return result;
}

const versions = (resolution: Resolution) => Object.fromEntries([...resolution.target].map(([name, t]) => [name, t.version]));

describe('resolve: add', () => {
  const a = doc(A, ['1.0.0']);
  const mid = doc(B, [{ v: '1.0.0', deps: { [A]: '1.0.0' } }]);
  const top = doc(C, [{ v: '1.0.0', deps: { [B]: '1.0.0', 'com.unity.textmeshpro': '3.0.6', 'com.unity.modules.ui': '1.0.0' } }]);
  const ctx = context([a, mid, top], { notInRegistry: ['com.unity.textmeshpro'] });
  const addC: Intent = { kind: 'add', requests: [{ name: C }], latest: false };

  it('lists the package and every transitive dependency the registry serves in our entry, sorted', () => {
    expect(resolved({}, addC, ctx, unity([other])).registryEntries).toEqual([
      { name: 'registry.example.com', url: registryUrl, scopes: [A, B, C] },
    ]);
    const ours = { name: 'mine', url: registryUrl, scopes: ['com.zzz', B] };
    const resolution = resolved({}, addC, ctx, unity([other, ours]));
    expect(resolution.registryEntries).toEqual([{ name: 'mine', url: registryUrl, scopes: [A, B, C, 'com.zzz'] }]);
    // The add plan reports the same entries the manifest gets.
    expect(resolution.add?.registryEntries).toEqual(resolution.registryEntries);
  });

  it('resolves the whole closure into the target, with who needs each package', () => {
    const resolution = resolved({}, addC, ctx, unity());
    expect(versions(resolution)).toEqual({ [A]: '1.0.0', [B]: '1.0.0', [C]: '1.0.0' });
    expect(resolution.target.get(C)).toMatchObject({ direct: true, requiredBy: [] });
    expect(resolution.target.get(A)).toMatchObject({ direct: false, requiredBy: [`${B}@1.0.0`] });
  });

  it('asks for the documents of the closure before it decides', () => {
    expect(resolve({}, addC, context([top]), unity())).toEqual({ kind: 'needs-documents', names: [B, 'com.unity.textmeshpro'] });
  });
});

describe('resolve: conflicts come from the one closure, once', () => {
  const E = 'com.vendor.e';
  const CORE = 'com.vendor.core';
  const e = doc(E, ['1.0.0', { v: '1.1.0', deps: { [CORE]: '2.0.0' } }]);
  const core = doc(CORE, ['1.0.0', { v: '2.0.0', unity: '6000.0' }]);

  it('add: a dependency the editor cannot use at the version the closure needs', () => {
    const resolution = resolved(
      {},
      { kind: 'add', requests: [{ name: E, spec: '1.1.0' }], latest: false },
      context([e, core]),
      unity(),
    );
    expect(resolution.conflicts).toEqual([
      expect.objectContaining({ reason: 'needs-newer-engine', message: `version conflict: ${E} requires ${CORE}@2.0.0` }),
    ]);
  });

  it('add: a raise refused and the closure that sees it again are one conflict', () => {
    const a = doc(A, ['1.0.0', '2.0.0']);
    const c = doc(C, [{ v: '1.0.0', deps: { [A]: '2.0.0' } }]);
    const resolution = resolved(
      { [A]: '1.0.0' },
      { kind: 'add', requests: [{ name: C }], latest: false },
      context([a, c], { editor: '2023.1.0f1' }),
      unity(),
    );
    expect(resolution.conflicts.map((c) => [c.reason, c.message])).toEqual([
      ['crosses-major', `version conflict: ${C} requires ${A}@2.0.0`],
    ]);
  });

  it('update: a conflict in the closure of the new version', () => {
    const LEAF = 'com.vendor.leaf';
    const updatable = doc(E, [{ v: '1.0.0' }, { v: '1.0.1', deps: { [LEAF]: '1.0.0' } }]);
    const resolution = resolved(
      { [E]: '1.0.0' },
      { kind: 'update', names: [], latest: false },
      context([updatable], { notInRegistry: [LEAF] }),
      unity(),
    );
    // The registry serving LEAF does not have it: under routing that is a registry pkg asked.
    expect(resolution.update?.updated).toEqual([{ package: E, from: '1.0.0', to: '1.0.1' }]);
    const routed = { ...context([updatable], { notInRegistry: [LEAF] }), isUnqueried: () => false };
    expect(resolved({ [E]: '1.0.0' }, { kind: 'update', names: [], latest: false }, routed, unity()).conflicts).toEqual([
      expect.objectContaining({ reason: 'unavailable', message: `version conflict: ${E} requires ${LEAF}@1.0.0` }),
    ]);
  });
});

describe('resolve: update', () => {
  const a = doc(A, [
    '1.0.0',
    { v: '1.1.0', deps: { [C]: '1.0.0', 'com.unity.textmeshpro': '3.0.6', 'com.unity.modules.ui': '1.0.0' } },
  ]);
  const c = doc(C, [{ v: '1.0.0', deps: { 'com.vendor.d': '1.0.0' } }]);
  const d = doc('com.vendor.d', ['1.0.0']);
  const ctx = context([a, c, d], { notInRegistry: ['com.unity.textmeshpro'] });
  const update: Intent = { kind: 'update', names: [], latest: false };

  it('completes our entry with what a new version brings from the registry, sorted', () => {
    const entries = [other, { name: 'ours', url: `${registryUrl}/`, scopes: [A] }];
    const resolution = resolved({ [A]: '1.0.0' }, update, ctx, unity(entries));
    expect(resolution.registryEntries).toEqual([{ name: 'ours', url: `${registryUrl}/`, scopes: [A, C, 'com.vendor.d'] }]);
    expect(resolution.update?.registryEntries).toEqual(resolution.registryEntries);
  });

  it('creates our entry when the manifest has none', () => {
    expect(resolved({ [A]: '1.0.0' }, update, ctx, unity()).registryEntries).toEqual([
      { name: 'registry.example.com', url: registryUrl, scopes: [A, C, 'com.vendor.d'] },
    ]);
  });

  it('changes nothing when a scope already covers the names, or when nothing is updated', () => {
    expect(
      resolved({ [A]: '1.0.0' }, update, ctx, unity([{ name: 'ours', url: registryUrl, scopes: ['com.vendor'] }]))
        .registryEntries,
    ).toEqual([]);
    expect(
      resolved({ [A]: '1.1.0' }, update, ctx, unity([{ name: 'ours', url: registryUrl, scopes: [A] }])).registryEntries,
    ).toEqual([]);
  });

  it('asks for the documents of dependencies it has to place', () => {
    expect(resolve({ [A]: '1.0.0' }, update, context([a]), unity())).toEqual({
      kind: 'needs-documents',
      names: expect.arrayContaining([C, 'com.unity.textmeshpro']),
    });
  });
});

describe('resolve: uninstall', () => {
  const shared = doc('com.vendor.shared', ['1.0.0']);
  const one = doc(A, [{ v: '1.0.0', deps: { 'com.vendor.shared': '1.0.0', 'com.vendor.only-a': '1.0.0' } }]);
  const onlyA = doc('com.vendor.only-a', ['1.0.0']);
  const two = doc(B, [{ v: '1.0.0', deps: { 'com.vendor.shared': '1.0.0' } }]);
  const ctx = context([shared, one, onlyA, two]);
  const entry = { name: 'ours', url: registryUrl, scopes: [A, B, 'com.vendor.future', 'com.vendor.only-a', 'com.vendor.shared'] };
  const both = { [A]: '1.0.0', [B]: '1.0.0' };
  const uninstall = (deps: Record<string, string>, names: string[], entries = [other, entry]) =>
    resolved(deps, { kind: 'uninstall', names }, ctx, unity(entries));

  it('removes the package and the scopes only it needed; the target is what stays', () => {
    const resolution = uninstall(both, [A]);
    expect(resolution.uninstall?.removed).toEqual([{ package: A, version: '1.0.0' }]);
    expect(resolution.dependencies).toEqual({ [B]: '1.0.0' });
    expect(versions(resolution)).toEqual({ [B]: '1.0.0', 'com.vendor.shared': '1.0.0' });
    expect(resolution.registryEntries).toEqual([{ ...entry, scopes: [B, 'com.vendor.future', 'com.vendor.shared'] }]);
    expect(resolution.uninstall?.registryEntries).toEqual(resolution.registryEntries);
  });

  it('tidies every entry the removed package’s dependencies came from', () => {
    const ours = { name: 'ours', url: registryUrl, scopes: [A, B] };
    const theirs = { name: 'theirs', url: 'https://other.example.com', scopes: ['com.vendor.only-a', 'com.vendor.shared'] };
    expect(uninstall(both, [A], [ours, theirs]).registryEntries).toEqual([
      { ...ours, scopes: [B] },
      { ...theirs, scopes: ['com.vendor.shared'] },
    ]);
  });

  it('empties the entry when nothing of ours is left, keeping hand-written scopes for other packages', () => {
    expect(uninstall(both, [A, B]).registryEntries.find((e) => e.url === registryUrl)?.scopes).toEqual(['com.vendor.future']);
    const bare = { name: 'ours', url: registryUrl, scopes: [A, 'com.vendor.only-a', 'com.vendor.shared'] };
    expect(uninstall({ [A]: '1.0.0' }, [A], [bare]).registryEntries[0]?.scopes).toEqual([]);
  });

  it('leaves a prefix scope that a remaining package still matches', () => {
    expect(uninstall(both, [A], [{ name: 'ours', url: registryUrl, scopes: ['com.vendor'] }]).registryEntries).toEqual([]);
  });

  it('under the direct rule asks no registry: the target is the manifest after, records unknown', () => {
    const resolution = resolved(both, { kind: 'uninstall', names: [A] }, context([]), { engineLabel: label, closure: 'direct' });
    expect(resolution.dependencies).toEqual({ [B]: '1.0.0' });
    expect([...resolution.target.values()]).toEqual([{ name: B, version: '1.0.0', direct: true, requiredBy: [], record: null }]);
    expect(resolution.registryEntries).toEqual([]);
  });
});

describe('resolve: the direct rule (global packages)', () => {
  const rules: EngineRules = { engineLabel: 'none (global packages)', closure: 'direct' };
  const a = doc(A, ['1.0.0', { v: '1.1.0', deps: { [C]: '9.9.9' } }]);
  const b = doc(B, ['1.0.0', '1.2.0']);

  it('installs each package alone: no dependency is resolved, asked for or in conflict', () => {
    const resolution = resolved({}, { kind: 'add', requests: [{ name: A }], latest: false }, context([a]), rules);
    expect(versions(resolution)).toEqual({ [A]: '1.1.0' });
    expect(resolution.conflicts).toEqual([]);
    expect(resolution.target.get(A)?.record?.version).toBe('1.1.0');
  });

  it('keeps in the target the packages an update with --registry leaves alone', () => {
    const resolution = resolved(
      { [A]: '1.0.0', [B]: '1.0.0' },
      { kind: 'update', names: [], latest: false, only: new Set([B]) },
      context([a, b]),
      rules,
    );
    expect(versions(resolution)).toEqual({ [A]: '1.0.0', [B]: '1.2.0' });
    expect(resolution.update?.updated).toEqual([{ package: B, from: '1.0.0', to: '1.2.0' }]);
  });
});
