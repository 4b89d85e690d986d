import { describe, expect, it } from 'vitest';
import { checkClosure } from '../../src/resolve/closure-check.js';
import { context, doc } from './documents.js';

const E = 'com.vendor.epsilon';
const CORE = 'com.vendor.core';
const LEAF = 'com.vendor.leaf';

const documents = [
  doc(E, [
    { v: '1.0.0', deps: { [CORE]: '1.0.0' } },
    { v: '1.1.0', deps: { [CORE]: '2.0.0' } },
    { v: '1.2.0', deps: { [LEAF]: '1.0.0' } },
  ]),
  doc(CORE, ['1.0.0', '1.1.0']),
  doc(LEAF, [{ v: '1.0.0', unity: '2023.1' }]),
];

describe('checkClosure', () => {
  it('resolves what only dependencies ask for to the highest version asked', () => {
    const ctx = context([...documents, doc('com.vendor.other', [{ v: '1.0.0', deps: { [CORE]: '1.1.0' } }])]);
    const result = checkClosure(ctx, { [E]: '1.0.0', 'com.vendor.other': '1.0.0' }, [E, 'com.vendor.other']);
    expect(result).toMatchObject({ kind: 'plan', conflicts: [] });
    if (result.kind === 'plan') expect(result.resolved.get(CORE)).toBe('1.1.0');
  });

  it('reports a dependency version that was never published, and one the editor cannot use', () => {
    const missing = checkClosure(context(documents), { [E]: '1.1.0' }, [E]);
    expect(missing).toMatchObject({
      conflicts: [{ reason: 'unavailable', message: `version conflict: ${E} requires ${CORE}@2.0.0`, package: `${E}@1.1.0` }],
    });
    const tooNew = checkClosure(context(documents), { [E]: '1.2.0' }, [E]);
    expect(tooNew).toMatchObject({
      conflicts: [
        { reason: 'needs-newer-engine', message: `version conflict: ${E} requires ${LEAF}@1.0.0`, engineRequirement: '2023.1' },
      ],
    });
  });

  it('reports a manifest entry lower than a dependent needs', () => {
    const result = checkClosure(
      context([...documents, doc('com.vendor.other', [{ v: '1.0.0', deps: { [CORE]: '1.1.0' } }])]),
      {
        'com.vendor.other': '1.0.0',
        [CORE]: '1.0.0',
      },
      ['com.vendor.other'],
    );
    expect(result).toMatchObject({
      conflicts: [{ reason: 'manifest-lower', version: '1.0.0', requires: { name: CORE, version: '1.1.0' } }],
    });
  });

  it('asks for the documents it lacks, and leaves what a registry does not serve to the editor', () => {
    expect(checkClosure(context([documents[0]!]), { [E]: '1.1.0' }, [E])).toEqual({ kind: 'needs-documents', names: [CORE] });
    expect(checkClosure(context([documents[0]!], { notInRegistry: [CORE] }), { [E]: '1.1.0' }, [E])).toMatchObject({
      conflicts: [],
    });
  });

  it('reports a dependency its registry does not have at all, unless the engine maker’s registry serves it', () => {
    const routed = (unqueried: boolean) => ({
      ...context([documents[0]!], { notInRegistry: [CORE] }),
      isUnqueried: () => unqueried,
    });
    expect(checkClosure(routed(false), { [E]: '1.0.0' }, [E])).toMatchObject({
      conflicts: [{ reason: 'unavailable', message: `version conflict: ${E} requires ${CORE}@1.0.0` }],
    });
    expect(checkClosure(routed(true), { [E]: '1.0.0' }, [E])).toMatchObject({ conflicts: [] });
  });
});
