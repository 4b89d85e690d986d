import { describe, expect, it } from 'vitest';
import { ClientError } from '../../src/errors/client-errors.js';
import { parsePackageRequest, planAdd, type AddPlan, type PackageRequest } from '../../src/resolve/add-plan.js';
import type { PlanContext } from '../../src/resolve/plan-context.js';
import { planUninstall } from '../../src/resolve/uninstall-plan.js';
import { context, doc } from './documents.js';

const A = 'com.vendor.a';
const B = 'com.vendor.b';
const C = 'com.vendor.c';
const label = 'Unity 2022.3.10f1';

function add(deps: Record<string, string>, requests: PackageRequest[], ctx: PlanContext): AddPlan {
  const result = planAdd(deps, requests, ctx, { engineLabel: label });
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

// The scopes an uninstall shrinks come from the closure of what stays: resolver.test.ts.
describe('planUninstall', () => {
  it('removes the named packages from the manifest, in manifest order', () => {
    const plan = planUninstall({ [A]: '1.0.0', [B]: '1.0.0', [C]: 'file:../c' }, [C, A]);
    expect(plan.removed).toEqual([
      { package: A, version: '1.0.0' },
      { package: C, version: 'file:../c' },
    ]);
    expect(plan.dependencies).toEqual({ [B]: '1.0.0' });
  });

  it('refuses a package the project does not have', () => {
    const error = failure(() => planUninstall({ [A]: '1.0.0' }, ['com.vendor.nope']));
    expect(error.message).toBe("package 'com.vendor.nope' not found in project");
  });
});
