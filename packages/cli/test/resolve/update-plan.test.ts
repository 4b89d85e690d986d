import { describe, expect, it } from 'vitest';
import { planUpdate, type UpdatePlan } from '../../src/resolve/update-plan.js';
import type { PlanContext } from '../../src/resolve/plan-context.js';
import { context, doc } from './documents.js';

const A = 'com.vendor.a';
const B = 'com.vendor.b';
const C = 'com.vendor.c';

function plan(
  deps: Record<string, string>,
  ctx: PlanContext,
  options: Partial<Parameters<typeof planUpdate>[2]> = {},
): UpdatePlan {
  const result = planUpdate(deps, ctx, { names: [], latest: false, ...options });
  if (result.kind !== 'plan') throw new Error(`plan needs documents: ${result.names.join(', ')}`);
  return result;
}

const versionsOfA = doc(A, ['1.0.0', '1.2.0', '1.3.0', '2.0.0', '2.1.0']);

describe('planUpdate: which version each package gets', () => {
  it.each([
    ['newest in the same major by default', '1.0.0', false, '1.3.0'],
    ['across majors with --latest', '1.0.0', true, '2.1.0'],
    ['within the major from the top of an older one', '2.0.0', false, '2.1.0'],
  ])('%s', (_, current, latest, expected) => {
    expect(plan({ [A]: current }, context([versionsOfA]), { latest }).updated).toEqual([
      { package: A, from: current, to: expected },
    ]);
  });

  it('reports the newest of the major as latest and names the newer major', () => {
    const result = plan({ [A]: '1.3.0' }, context([versionsOfA]));
    expect(result.updated).toEqual([]);
    expect(result.unchanged).toEqual([{ package: A, version: '1.3.0', status: 'newer-major', newerMajor: '2.1.0' }]);
  });

  it('never picks a version whose unity field is newer than the editor', () => {
    const d = doc(A, ['1.0.0', { v: '1.1.0', unity: '2021.3' }, { v: '1.2.0', unity: '2023.1' }]);
    expect(plan({ [A]: '1.0.0' }, context([d])).updated).toEqual([
      { package: A, from: '1.0.0', to: '1.1.0', needsNewerEngine: { version: '1.2.0', requires: '2023.1' } },
    ]);
  });

  it('compares unityRelease too', () => {
    const d = doc(A, [
      '1.0.0',
      { v: '1.1.0', unity: '2022.3', unityRelease: '10f1' },
      { v: '1.2.0', unity: '2022.3', unityRelease: '11f1' },
    ]);
    expect(plan({ [A]: '1.0.0' }, context([d])).updated).toEqual([
      { package: A, from: '1.0.0', to: '1.1.0', needsNewerEngine: { version: '1.2.0', requires: '2022.3.11f1' } },
    ]);
  });

  it('says when a newer version waits for a newer editor', () => {
    const d = doc(A, ['1.0.0', { v: '1.1.0', unity: '2023.1' }]);
    expect(plan({ [A]: '1.0.0' }, context([d])).unchanged).toEqual([
      { package: A, version: '1.0.0', status: 'needs-newer-engine', needsNewerEngine: { version: '1.1.0', requires: '2023.1' } },
    ]);
  });

  it('does not check compatibility when the editor version is unknown', () => {
    const d = doc(A, ['1.0.0', { v: '1.1.0', unity: '6000.0' }]);
    expect(plan({ [A]: '1.0.0' }, context([d], { editor: null })).updated[0]?.to).toBe('1.1.0');
    expect(plan({ [A]: '1.0.0' }, context([d], { editor: 'not-a-version' })).updated[0]?.to).toBe('1.1.0');
  });

  it('skips deprecated versions', () => {
    const d = doc(A, ['1.0.0', '1.1.0', { v: '1.2.0', deprecated: 'broken, use 1.1.0' }]);
    expect(plan({ [A]: '1.0.0' }, context([d])).updated[0]?.to).toBe('1.1.0');
  });

  it('leaves prereleases alone unless the project is on one', () => {
    const d = doc(A, ['1.0.0', '1.1.0-beta.1', '2.0.0-beta.1', '2.0.0-beta.2']);
    expect(plan({ [A]: '1.0.0' }, context([d])).updated).toEqual([]);
    expect(plan({ [A]: '2.0.0-beta.1' }, context([d])).updated[0]?.to).toBe('2.0.0-beta.2');
  });

  it('keeps 0.x updates within the minor, as npm carets do', () => {
    const d = doc(A, ['0.2.1', '0.2.5', '0.3.0']);
    expect(plan({ [A]: '0.2.1' }, context([d])).updated[0]?.to).toBe('0.2.5');
    expect(plan({ [A]: '0.2.1' }, context([d]), { latest: true }).updated[0]?.to).toBe('0.3.0');
  });

  it('never downgrades a version the registry does not list', () => {
    const result = plan({ [A]: '1.9.0' }, context([versionsOfA]));
    expect(result.updated).toEqual([]);
    expect(result.unchanged[0]).toMatchObject({ package: A, version: '1.9.0' });
  });

  it('updates only the named packages', () => {
    const d = doc(B, ['1.0.0', '1.5.0']);
    const result = plan({ [A]: '1.0.0', [B]: '1.0.0' }, context([versionsOfA, d]), { names: [B] });
    expect(result.updated).toEqual([{ package: B, from: '1.0.0', to: '1.5.0' }]);
    expect(result.unchanged).toEqual([]);
    expect(result.dependencies).toEqual({ [A]: '1.0.0', [B]: '1.5.0' });
  });
});

describe('planUpdate: what it reports without updating', () => {
  it('reports built-ins, packages the registry lacks and file or git references, in manifest order', () => {
    const deps = {
      'com.unity.modules.physics': '1.0.0',
      'com.unity.textmeshpro': '3.0.6',
      'com.vendor.local': 'file:../local',
      'com.vendor.git': 'https://github.com/vendor/git.git#v1.0.0',
      [A]: '1.3.0',
    };
    const result = plan(deps, context([doc(A, ['1.3.0'])], { notInRegistry: ['com.unity.textmeshpro'] }));
    expect(result.unchanged).toEqual([
      { package: 'com.unity.modules.physics', version: '1.0.0', status: 'built-in' },
      { package: 'com.unity.textmeshpro', version: '3.0.6', status: 'not-in-registry' },
      { package: 'com.vendor.local', version: 'file:../local', status: 'external' },
      { package: 'com.vendor.git', version: 'https://github.com/vendor/git.git#v1.0.0', status: 'external' },
      { package: A, version: '1.3.0', status: 'latest' },
    ]);
    expect(result.conflicts).toEqual([]);
  });

  it('asks for the documents it does not have, never for built-ins or references', () => {
    const result = planUpdate({ 'com.unity.modules.ui': '1.0.0', [A]: '1.0.0', [B]: 'file:../b' }, context([]), {
      names: [],
      latest: false,
    });
    expect(result).toEqual({ kind: 'needs-documents', names: [A] });
  });
});

describe('planUpdate: dependencies raised as needed', () => {
  it('raises a manifest dependency that a new version needs, even when not named', () => {
    const a = doc(A, ['1.0.0', { v: '1.1.0', deps: { [B]: '1.2.0' } }]);
    const b = doc(B, ['1.0.0', '1.2.0', '1.4.0']);
    const result = plan({ [A]: '1.0.0', [B]: '1.0.0' }, context([a, b]), { names: [A] });
    expect(result.updated).toEqual([
      { package: A, from: '1.0.0', to: '1.1.0' },
      { package: B, from: '1.0.0', to: '1.2.0', requiredBy: `${A}@1.1.0` },
    ]);
    expect(result.conflicts).toEqual([]);
  });

  it('raises to the lowest usable version at or above the one needed', () => {
    const a = doc(A, ['1.0.0', { v: '1.1.0', deps: { [B]: '1.2.0' } }]);
    const b = doc(B, ['1.0.0', { v: '1.2.0', unity: '2023.1' }, '1.2.1', '1.5.0']);
    expect(plan({ [A]: '1.0.0', [B]: '1.0.0' }, context([a, b]), { names: [A] }).updated[1]).toEqual({
      package: B,
      from: '1.0.0',
      to: '1.2.1',
      requiredBy: `${A}@1.1.0`,
    });
  });

  it('follows a chain of dependencies', () => {
    const a = doc(A, ['1.0.0', { v: '1.1.0', deps: { [B]: '1.1.0' } }]);
    const b = doc(B, ['1.0.0', { v: '1.1.0', deps: { [C]: '1.1.0' } }]);
    const c = doc(C, ['1.0.0', '1.1.0']);
    const result = plan({ [A]: '1.0.0', [B]: '1.0.0', [C]: '1.0.0' }, context([a, b, c]), { names: [A] });
    expect(result.updated).toEqual([
      { package: A, from: '1.0.0', to: '1.1.0' },
      { package: B, from: '1.0.0', to: '1.1.0', requiredBy: `${A}@1.1.0` },
      { package: C, from: '1.0.0', to: '1.1.0', requiredBy: `${B}@1.1.0` },
    ]);
  });

  it('does not mark a package raised when its own update already goes far enough', () => {
    const a = doc(A, ['1.0.0', { v: '1.1.0', deps: { [B]: '1.2.0' } }]);
    const b = doc(B, ['1.0.0', '1.2.0', '1.4.0']);
    expect(plan({ [A]: '1.0.0', [B]: '1.0.0' }, context([a, b])).updated).toEqual([
      { package: A, from: '1.0.0', to: '1.1.0' },
      { package: B, from: '1.0.0', to: '1.4.0' },
    ]);
  });

  it('raises a package from another registry to exactly the version needed', () => {
    const a = doc(A, ['1.0.0', { v: '1.1.0', deps: { 'com.unity.textmeshpro': '3.0.7' } }]);
    const result = plan(
      { [A]: '1.0.0', 'com.unity.textmeshpro': '3.0.6' },
      context([a], { notInRegistry: ['com.unity.textmeshpro'] }),
    );
    expect(result.updated[1]).toEqual({
      package: 'com.unity.textmeshpro',
      from: '3.0.6',
      to: '3.0.7',
      requiredBy: `${A}@1.1.0`,
    });
  });

  it('leaves built-ins and file references alone', () => {
    const a = doc(A, ['1.0.0', { v: '1.1.0', deps: { 'com.unity.modules.ui': '2.0.0', [B]: '9.0.0' } }]);
    const result = plan({ [A]: '1.0.0', 'com.unity.modules.ui': '1.0.0', [B]: 'file:../b' }, context([a]));
    expect(result.updated).toEqual([{ package: A, from: '1.0.0', to: '1.1.0' }]);
    expect(result.conflicts).toEqual([]);
  });
});

describe('planUpdate: conflicts', () => {
  it('refuses a raise across the dependency’s major without --latest', () => {
    const a = doc(A, ['1.0.0', { v: '1.1.0', deps: { [B]: '2.0.0' } }]);
    const b = doc(B, ['1.0.0', '2.0.0']);
    const result = plan({ [A]: '1.0.0', [B]: '1.0.0' }, context([a, b]), { names: [A] });
    expect(result.conflicts).toEqual([
      {
        package: `${A}@1.1.0`,
        requires: { name: B, version: '2.0.0' },
        reason: 'crosses-major',
        version: '2.0.0',
        message: `version conflict: ${A} requires ${B}@2.0.0`,
      },
    ]);
  });

  it('allows that raise with --latest', () => {
    const a = doc(A, ['1.0.0', { v: '1.1.0', deps: { [B]: '2.0.0' } }]);
    const b = doc(B, ['1.0.0', '2.0.0']);
    const result = plan({ [A]: '1.0.0', [B]: '1.0.0' }, context([a, b]), { names: [A], latest: true });
    expect(result.conflicts).toEqual([]);
    expect(result.dependencies).toEqual({ [A]: '1.1.0', [B]: '2.0.0' });
  });

  it('refuses a raise to a version the editor cannot use', () => {
    const a = doc(A, ['1.0.0', { v: '1.1.0', deps: { [B]: '1.2.0' } }]);
    const b = doc(B, ['1.0.0', { v: '1.2.0', unity: '6000.0' }]);
    const result = plan({ [A]: '1.0.0', [B]: '1.0.0' }, context([a, b]));
    expect(result.conflicts).toEqual([
      expect.objectContaining({
        reason: 'needs-newer-engine',
        version: '1.2.0',
        engineRequirement: '6000.0',
        message: `version conflict: ${A} requires ${B}@1.2.0`,
      }),
    ]);
  });

  it('refuses a raise to a version nobody published', () => {
    const a = doc(A, ['1.0.0', { v: '1.1.0', deps: { [B]: '1.7.0' } }]);
    const b = doc(B, ['1.0.0', '1.2.0']);
    expect(plan({ [A]: '1.0.0', [B]: '1.0.0' }, context([a, b])).conflicts).toEqual([
      expect.objectContaining({ reason: 'unavailable', message: `version conflict: ${A} requires ${B}@1.7.0` }),
    ]);
  });

  it('refuses to move a package to a major another dependency was not built for', () => {
    const a = doc(A, [{ v: '1.0.0', deps: { [B]: '1.0.0' } }]);
    const b = doc(B, ['1.0.0', '2.0.0']);
    const result = plan({ [A]: '1.0.0', [B]: '1.0.0' }, context([a, b]), { latest: true });
    expect(result.conflicts).toEqual([
      {
        package: `${B}@2.0.0`,
        requires: { name: B, version: '1.0.0' },
        reason: 'breaks-dependent',
        dependent: `${A}@1.0.0`,
        message: 'version conflict: cannot update package',
      },
    ]);
  });

  it('is happy when the dependent moves to the new major too', () => {
    const a = doc(A, [
      { v: '1.0.0', deps: { [B]: '1.0.0' } },
      { v: '2.0.0', deps: { [B]: '2.0.0' } },
    ]);
    const b = doc(B, ['1.0.0', '2.0.0']);
    const result = plan({ [A]: '1.0.0', [B]: '1.0.0' }, context([a, b]), { latest: true });
    expect(result.conflicts).toEqual([]);
    expect(result.dependencies).toEqual({ [A]: '2.0.0', [B]: '2.0.0' });
  });
});
