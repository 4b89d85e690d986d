import { describe, expect, it } from 'vitest';
import type { PackageDocument } from '@pkg/protocol';
import { godotEngine } from '../../src/engines/godot/godot-engine.js';
import { resolveInstallSet, type InstallSet } from '../../src/resolve/one-version-closure.js';
import { ClientError } from '../../src/errors/client-errors.js';
import { context, doc, type VersionSpec } from './documents.js';

/** Godot packages: a version asks for Godot 4.0 unless it says otherwise. */
function godotDoc(name: string, versions: (string | VersionSpec)[]): PackageDocument {
  return doc(
    name,
    versions.map((entry) => ({ godot: '4.0', ...(typeof entry === 'string' ? { v: entry } : entry) })),
  );
}

const inGodot42 = (documents: PackageDocument[]) => context(documents, { engine: godotEngine, editor: '4.2' });

function versions(result: ReturnType<typeof resolveInstallSet>): Record<string, string> {
  expect(result.kind).toBe('plan');
  return Object.fromEntries([...(result as InstallSet).records].map(([n, r]) => [n, r.version]));
}

function failure(run: () => unknown): ClientError {
  try {
    run();
  } catch (err) {
    if (err instanceof ClientError) return err;
    throw err;
  }
  throw new Error('expected a ClientError');
}

const DOCS = [
  godotDoc('com.a.app', [
    { v: '1.0.0', deps: { 'com.a.lib': '1.1.0' } },
    { v: '2.0.0', deps: { 'com.a.lib': '2.0.0' } },
  ]),
  godotDoc('com.a.tool', [{ v: '1.0.0', deps: { 'com.a.lib': '1.2.0' } }]),
  godotDoc('com.a.lib', ['1.0.0', '1.1.0', '1.2.0', { v: '1.3.0', godot: '4.4' }, '2.0.0']),
];

describe('resolveInstallSet: one version of every package', () => {
  it('asks for the documents it has not seen, then installs the lowest version in range of a dependency', () => {
    const partial = resolveInstallSet({ 'com.a.app': '1.0.0' }, inGodot42([DOCS[0]!]), {}, 'Godot 4.2');
    expect(partial).toEqual({ kind: 'needs-documents', names: ['com.a.lib'] });
    expect(versions(resolveInstallSet({ 'com.a.app': '1.0.0' }, inGodot42(DOCS), {}, 'Godot 4.2'))).toEqual({
      'com.a.app': '1.0.0',
      'com.a.lib': '1.1.0',
    });
  });

  it('keeps the locked version of a dependency while it fits, and takes the highest asked for when two packages ask', () => {
    expect(versions(resolveInstallSet({ 'com.a.app': '1.0.0' }, inGodot42(DOCS), { 'com.a.lib': '1.2.0' }, 'Godot 4.2'))).toEqual(
      {
        'com.a.app': '1.0.0',
        'com.a.lib': '1.2.0',
      },
    );
    expect(
      versions(resolveInstallSet({ 'com.a.app': '1.0.0', 'com.a.tool': '1.0.0' }, inGodot42(DOCS), {}, 'Godot 4.2')),
    ).toEqual({
      'com.a.app': '1.0.0',
      'com.a.tool': '1.0.0',
      'com.a.lib': '1.2.0',
    });
  });

  it('never picks a version the engine cannot use, and a lock version out of range is left behind', () => {
    expect(versions(resolveInstallSet({ 'com.a.app': '1.0.0' }, inGodot42(DOCS), { 'com.a.lib': '1.3.0' }, 'Godot 4.2'))).toEqual(
      {
        'com.a.app': '1.0.0',
        'com.a.lib': '1.1.0',
      },
    );
  });

  it('finds two majors of one package a conflict: a project holds one', () => {
    const result = resolveInstallSet({ 'com.a.app': '2.0.0', 'com.a.tool': '1.0.0' }, inGodot42(DOCS), {}, 'Godot 4.2');
    expect(result.kind).toBe('plan');
    const { conflicts } = result as InstallSet;
    expect(conflicts).toHaveLength(1);
    expect(conflicts[0]).toMatchObject({ reason: 'two-majors', requires: { name: 'com.a.lib' } });
    expect(conflicts[0]!.message).toMatch(/^version conflict: com\.a\.(app|tool) requires com\.a\.lib@/);
  });

  it('finds a manifest version lower than a dependency needs a conflict, with who needs what', () => {
    const result = resolveInstallSet({ 'com.a.tool': '1.0.0', 'com.a.lib': '1.1.0' }, inGodot42(DOCS), {}, 'Godot 4.2');
    expect((result as InstallSet).conflicts).toEqual([
      {
        package: 'com.a.tool@1.0.0',
        requires: { name: 'com.a.lib', version: '1.2.0' },
        reason: 'manifest-lower',
        version: '1.1.0',
        message: 'version conflict: com.a.tool requires com.a.lib@1.2.0',
      },
    ]);
    expect((result as InstallSet).requiredBy.get('com.a.lib')).toEqual(['com.a.tool@1.0.0']);
  });

  it('refuses a manifest version the engine cannot use, and one the registry lacks', () => {
    const tooNew = failure(() => resolveInstallSet({ 'com.a.lib': '1.3.0' }, inGodot42(DOCS), {}, 'Godot 4.2'));
    expect(tooNew.code).toBe('NO_COMPATIBLE_VERSION');
    expect(tooNew.message).toBe('com.a.lib@1.3.0 requires Godot 4.4; this project uses Godot 4.2');
    expect(failure(() => resolveInstallSet({ 'com.a.lib': '9.0.0' }, inGodot42(DOCS), {}, 'Godot 4.2')).code).toBe(
      'VERSION_NOT_FOUND',
    );
  });

  it('refuses a dependency given as a range, naming it: dependencies are exact versions', () => {
    const ranged = [doc('com.a.ui', [{ v: '2.0.0', deps: { 'com.a.lib': '^1.0.0' } }]), DOCS[2]!];
    const error = failure(() => resolveInstallSet({ 'com.a.ui': '2.0.0' }, context(ranged), {}, 'Godot 4.2'));
    expect(error.code).toBe('VERSION_CONFLICT');
    expect(error.message).toBe('com.a.ui@2.0.0 asks for com.a.lib@^1.0.0, which is not an exact version');
    expect(error.hint).toMatch(/1\.0\.0, not \^1\.0\.0/);
  });
});
