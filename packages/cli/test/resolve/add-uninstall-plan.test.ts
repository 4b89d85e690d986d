import { describe, expect, it } from 'vitest';
import { ClientError } from '../../src/errors/client-errors.js';
import { parsePackageRequest, planAdd, type AddPlan, type PackageRequest } from '../../src/resolve/add-plan.js';
import type { PlanContext } from '../../src/resolve/plan-context.js';
import { planUninstall, type UninstallPlan } from '../../src/resolve/uninstall-plan.js';
import { context, doc } from './documents.js';

const A = 'com.vendor.a';
const B = 'com.vendor.b';
const C = 'com.vendor.c';
const registryUrl = 'https://registry.example.com';
const label = 'Unity 2022.3.10f1';

function add(
  deps: Record<string, string>,
  requests: PackageRequest[],
  ctx: PlanContext,
  entries = [] as { name: string; url: string; scopes: string[] }[],
): AddPlan {
  const result = planAdd(deps, requests, ctx, { engineLabel: label, scopes: { entries, entryFor: () => registryUrl } });
  if (result.kind !== 'plan') throw new Error(`needs ${result.names.join(', ')}`);
  return result;
}

function failure(run: () => unknown): ClientError {
  try {
    run();
  } catch (error) {
    if (error instanceof ClientError) return error;
    throw error;
  }
  throw new Error('expected a ClientError');
}

const a = doc(
  A,
  [{ v: '1.0.0', unity: '2021.3' }, { v: '1.1.0', unity: '2022.3' }, { v: '2.0.0', unity: '2023.1' }, '3.0.0-beta.1'],
  {
    beta: '3.0.0-beta.1',
    old: '1.0.0',
  },
);

describe('parsePackageRequest', () => {
  it.each([
    ['com.vendor.a', { name: 'com.vendor.a' }],
    ['com.vendor.a@1.2.0', { name: 'com.vendor.a', spec: '1.2.0' }],
    ['com.vendor.a@beta', { name: 'com.vendor.a', spec: 'beta' }],
    ['com.vendor.a@^1.2', { name: 'com.vendor.a', spec: '^1.2' }],
  ])('%s', (input, expected) => {
    expect(parsePackageRequest(input)).toEqual(expected);
  });

  it.each(['@scope/name', 'Com.Vendor', 'single', 'com.vendor.a@'])('refuses %j as wrong usage', (input) => {
    const error = failure(() => parsePackageRequest(input));
    expect(error.exitCode).toBe(2);
  });
});

describe('planAdd', () => {
  it('picks the newest version the editor can use, not the latest tag', () => {
    const plan = add({}, [{ name: A }], context([a]));
    expect(plan.added).toEqual([{ package: A, version: '1.1.0' }]);
    expect(plan.dependencies).toEqual({ [A]: '1.1.0' });
  });

  it.each([
    ['a version', '1.0.0', '1.0.0'],
    ['a tag', 'old', '1.0.0'],
    ['a prerelease tag', 'beta', '3.0.0-beta.1'],
    ['a range', '^1.0.0', '1.1.0'],
  ])('takes %s', (_, spec, expected) => {
    expect(add({}, [{ name: A, spec }], context([a])).added).toEqual([{ package: A, version: expected }]);
  });

  it('changes the version of a package already there, and says when it is the same', () => {
    expect(add({ [A]: '1.0.0' }, [{ name: A }], context([a])).added).toEqual([
      { package: A, version: '1.1.0', previous: '1.0.0' },
    ]);
    const same = add({ [A]: '1.1.0' }, [{ name: A }], context([a]));
    expect(same.added).toEqual([]);
    expect(same.alreadyPresent).toEqual([{ package: A, version: '1.1.0', previous: '1.1.0' }]);
  });

  it('never moves a package down when no version is asked for', () => {
    const plan = add({ [A]: '3.0.0-beta.1' }, [{ name: A }], context([a]));
    expect(plan.added).toEqual([]);
    expect(plan.alreadyPresent).toEqual([{ package: A, version: '3.0.0-beta.1', previous: '3.0.0-beta.1' }]);
    expect(add({ [A]: '3.0.0-beta.1' }, [{ name: A, spec: '1.1.0' }], context([a])).added).toEqual([
      { package: A, version: '1.1.0', previous: '3.0.0-beta.1' },
    ]);
  });

  it('refuses an incompatible version, listing the ones that work', () => {
    const error = failure(() => add({}, [{ name: A, spec: '2.0.0' }], context([a])));
    expect(error.message).toBe(`${A}@2.0.0 requires 2023.1 or newer; this project uses ${label}`);
    expect(error.hint).toBe(`Versions that work with ${label}: 3.0.0-beta.1, 1.1.0, 1.0.0`);
  });

  it('says when no version at all works with the editor', () => {
    const only = doc(A, [
      { v: '2.0.0', unity: '2023.1' },
      { v: '2.1.0', unity: '6000.0', unityRelease: '23f1' },
    ]);
    const error = failure(() => add({}, [{ name: A }], context([only])));
    expect(error.message).toBe(`No version of ${A} is compatible with ${label}`);
    expect(error.hint).toBe('Published versions: 2.1.0 (needs 6000.0.23f1), 2.0.0 (needs 2023.1)');
  });

  it('says once what every version needs when they all need the same', () => {
    const same = doc(A, [
      { v: '2.0.0', unity: '2023.1' },
      { v: '2.1.0', unity: '2023.1' },
    ]);
    const error = failure(() => add({}, [{ name: A }], context([same])));
    expect(error.hint).toBe('Every published version (2) needs 2023.1.');
  });

  it.each([
    [{ name: A, spec: '9.9.9' }, `Version '9.9.9' of ${A} not found`],
    [{ name: A, spec: 'nightly' }, `Version or tag 'nightly' of ${A} not found`],
    [{ name: A, spec: '^9' }, `No version of ${A} matching '^9' works with ${label}`],
    [{ name: 'com.vendor.nope' }, "Package 'com.vendor.nope' not found in the registry"],
  ])('refuses %j', (request, message) => {
    const error = failure(() => add({}, [request], context([a], { notInRegistry: ['com.vendor.nope'] })));
    expect(error.message).toBe(message);
    expect(error.exitCode).toBe(1);
  });

  it('lists the package and every transitive dependency the registry serves in our entry, sorted', () => {
    const top = doc(C, [
      { v: '1.0.0', deps: { [B]: '1.0.0', 'com.unity.textmeshpro': '3.0.6', 'com.unity.modules.ui': '1.0.0' } },
    ]);
    const mid = doc(B, [{ v: '1.0.0', deps: { [A]: '1.0.0' } }]);
    const ctx = context([a, mid, top], { notInRegistry: ['com.unity.textmeshpro'] });
    const other = { name: 'other', url: 'https://other.example.com', scopes: ['com.other'] };
    expect(add({}, [{ name: C }], ctx, [other]).registryEntries[0]).toEqual({
      name: 'registry.example.com',
      url: registryUrl,
      scopes: [A, B, C],
    });
    const ours = { name: 'mine', url: registryUrl, scopes: ['com.zzz', B] };
    expect(add({}, [{ name: C }], ctx, [other, ours]).registryEntries[0]).toEqual({
      name: 'mine',
      url: registryUrl,
      scopes: [A, B, C, 'com.zzz'],
    });
  });

  it('raises a manifest entry the new package needs', () => {
    const top = doc(C, [{ v: '1.0.0', deps: { [A]: '1.1.0' } }]);
    const plan = add({ [A]: '1.0.0' }, [{ name: C }], context([a, top]));
    expect(plan.raised).toEqual([{ package: A, from: '1.0.0', to: '1.1.0', requiredBy: `${C}@1.0.0` }]);
    expect(plan.dependencies).toEqual({ [A]: '1.1.0', [C]: '1.0.0' });
  });

  it('reports a conflict when the needed raise crosses a major', () => {
    const top = doc(C, [{ v: '1.0.0', deps: { [A]: '2.0.0' } }]);
    const plan = add({ [A]: '1.0.0' }, [{ name: C }], context([a, top], { editor: '2023.1.0f1' }));
    expect(plan.conflicts.map((c) => c.message)).toEqual([`version conflict: ${C} requires ${A}@2.0.0`]);
  });

  it('asks for the documents of the requested packages and the manifest’s registry packages', () => {
    const result = planAdd({ [B]: '1.0.0', 'com.unity.modules.ui': '1.0.0' }, [{ name: A }], context([]), { engineLabel: label });
    expect(result).toEqual({ kind: 'needs-documents', names: [A, B] });
  });
});

describe('planUninstall', () => {
  const shared = doc('com.vendor.shared', ['1.0.0']);
  const one = doc(A, [{ v: '1.0.0', deps: { 'com.vendor.shared': '1.0.0', 'com.vendor.only-a': '1.0.0' } }]);
  const onlyA = doc('com.vendor.only-a', ['1.0.0']);
  const two = doc(B, [{ v: '1.0.0', deps: { 'com.vendor.shared': '1.0.0' } }]);
  const ctx = context([shared, one, onlyA, two]);
  const entry = { name: 'ours', url: registryUrl, scopes: [A, B, 'com.vendor.future', 'com.vendor.only-a', 'com.vendor.shared'] };
  const other = { name: 'other', url: 'https://other.example.com', scopes: ['com.other'] };

  function uninstall(deps: Record<string, string>, names: string[], entries = [other, entry]): UninstallPlan {
    const result = planUninstall(deps, names, ctx, { entries });
    if (result.kind !== 'plan') throw new Error(`needs ${result.names.join(', ')}`);
    return result;
  }

  it('removes the package and the scopes only it needed', () => {
    const plan = uninstall({ [A]: '1.0.0', [B]: '1.0.0' }, [A]);
    expect(plan.removed).toEqual([{ package: A, version: '1.0.0' }]);
    expect(plan.dependencies).toEqual({ [B]: '1.0.0' });
    expect(plan.registryEntries).toEqual([{ ...entry, scopes: [B, 'com.vendor.future', 'com.vendor.shared'] }]);
  });

  it('tidies every entry the removed package’s dependencies came from', () => {
    const ours = { name: 'ours', url: registryUrl, scopes: [A, B] };
    const theirs = { name: 'theirs', url: 'https://other.example.com', scopes: ['com.vendor.only-a', 'com.vendor.shared'] };
    const plan = uninstall({ [A]: '1.0.0', [B]: '1.0.0' }, [A], [ours, theirs]);
    expect(plan.registryEntries).toEqual([
      { ...ours, scopes: [B] },
      { ...theirs, scopes: ['com.vendor.shared'] },
    ]);
  });

  it('empties the entry when nothing of ours is left, keeping hand-written scopes for other packages', () => {
    const plan = uninstall({ [A]: '1.0.0', [B]: '1.0.0' }, [A, B]);
    expect(plan.registryEntries.find((e) => e.url === registryUrl)?.scopes).toEqual(['com.vendor.future']);
    const bare = { name: 'ours', url: registryUrl, scopes: [A, 'com.vendor.only-a', 'com.vendor.shared'] };
    expect(uninstall({ [A]: '1.0.0' }, [A], [bare]).registryEntries[0]?.scopes).toEqual([]);
  });

  it('leaves a prefix scope that a remaining package still matches', () => {
    const prefix = { name: 'ours', url: registryUrl, scopes: ['com.vendor'] };
    expect(uninstall({ [A]: '1.0.0', [B]: '1.0.0' }, [A], [prefix]).registryEntries).toEqual([]);
  });

  it('refuses a package the project does not have', () => {
    const error = failure(() => uninstall({ [A]: '1.0.0' }, ['com.vendor.nope']));
    expect(error.message).toBe("package 'com.vendor.nope' not found in project");
  });
});
