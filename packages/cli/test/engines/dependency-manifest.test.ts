import { describe, expect, it } from 'vitest';
import { editDependencyManifest, parseDependencyManifest } from '../../src/engines/dependency-manifest.js';

const styles = [
  ['2 spaces, LF, final newline', '  ', '\n', true],
  ['4 spaces, LF', '    ', '\n', true],
  ['CRLF', '  ', '\r\n', true],
  ['no final newline', '  ', '\n', false],
  ['tabs, CRLF, no final newline', '\t', '\r\n', false],
] as const;

function write(value: unknown, indent: string, eol: string, finalNewline: boolean): string {
  const text = JSON.stringify(value, null, indent).split('\n').join(eol);
  return finalNewline ? text + eol : text;
}

const manifest = {
  dependencies: {
    'com.unity.modules.ui': '1.0.0',
    'com.vendor.a': '1.0.0',
    'com.vendor.c': '1.0.0',
  },
  scopedRegistries: [{ name: 'other', url: 'https://other.example.com', scopes: ['com.other'] }],
  testables: ['com.vendor.a'],
};

describe('editDependencyManifest keeps the file’s formatting byte for byte', () => {
  it.each(styles)('%s', (_, indent, eol, finalNewline) => {
    const text = write(manifest, indent, eol, finalNewline);
    const edited = editDependencyManifest(text, {
      set: { 'com.vendor.a': '1.2.0', 'com.vendor.b': '2.0.0' },
      registry: { name: 'ours', url: 'https://registry.example.com', scopes: ['com.vendor.a', 'com.vendor.b'] },
    });
    const expected = structuredClone(manifest) as typeof manifest & { dependencies: Record<string, string> };
    expected.dependencies = {
      'com.unity.modules.ui': '1.0.0',
      'com.vendor.a': '1.2.0',
      'com.vendor.b': '2.0.0',
      'com.vendor.c': '1.0.0',
    };
    expected.scopedRegistries.push({
      name: 'ours',
      url: 'https://registry.example.com',
      scopes: ['com.vendor.a', 'com.vendor.b'],
    });
    expect(edited).toBe(write(expected, indent, eol, finalNewline));
  });
});

describe('editDependencyManifest', () => {
  const base = write(manifest, '  ', '\n', true);

  it('creates scopedRegistries when the manifest has none', () => {
    const text = '{\n  "dependencies": {\n    "com.vendor.a": "1.0.0"\n  }\n}\n';
    expect(editDependencyManifest(text, { registry: { name: 'r', url: 'https://r.example', scopes: ['com.vendor.a'] } })).toBe(
      '{\n  "dependencies": {\n    "com.vendor.a": "1.0.0"\n  },\n  "scopedRegistries": [\n    {\n      "name": "r",\n      "url": "https://r.example",\n      "scopes": [\n        "com.vendor.a"\n      ]\n    }\n  ]\n}\n',
    );
  });

  it('rewrites only the scopes of our entry, found by URL whatever its trailing slash', () => {
    const text = write(
      {
        dependencies: {},
        scopedRegistries: [{ name: 'Ours', url: 'https://r.example/', scopes: ['com.b'] }, manifest.scopedRegistries[0]],
      },
      '  ',
      '\n',
      true,
    );
    const edited = editDependencyManifest(text, {
      registry: { name: 'x', url: 'https://R.example', scopes: ['com.a', 'com.b'] },
    });
    expect(JSON.parse(edited).scopedRegistries).toEqual([
      { name: 'Ours', url: 'https://r.example/', scopes: ['com.a', 'com.b'] },
      manifest.scopedRegistries[0],
    ]);
  });

  it('removes our entry when it has no scopes left, and leaves the others', () => {
    const text = write(
      {
        dependencies: {},
        scopedRegistries: [{ name: 'o', url: 'https://r.example', scopes: ['com.a'] }, manifest.scopedRegistries[0]],
      },
      '  ',
      '\n',
      true,
    );
    const edited = editDependencyManifest(text, { registry: { name: 'o', url: 'https://r.example', scopes: [] } });
    expect(edited).toBe(write({ dependencies: {}, scopedRegistries: [manifest.scopedRegistries[0]] }, '  ', '\n', true));
  });

  it('removes dependencies', () => {
    const edited = editDependencyManifest(base, { remove: ['com.vendor.a'] });
    expect(JSON.parse(edited).dependencies).toEqual({ 'com.unity.modules.ui': '1.0.0', 'com.vendor.c': '1.0.0' });
  });

  it('returns the text unchanged for an empty change', () => {
    expect(editDependencyManifest(base, {})).toBe(base);
  });

  it('keeps a byte order mark', () => {
    const edited = editDependencyManifest(`\uFEFF${base}`, { set: { 'com.vendor.a': '1.1.0' } });
    expect(edited.startsWith('\uFEFF{')).toBe(true);
    expect(parseDependencyManifest(edited).dependencies['com.vendor.a']).toBe('1.1.0');
  });
});

describe('parseDependencyManifest', () => {
  it('reads dependencies and scoped registries', () => {
    expect(parseDependencyManifest(JSON.stringify(manifest))).toEqual({
      dependencies: manifest.dependencies,
      scopedRegistries: manifest.scopedRegistries,
    });
    expect(parseDependencyManifest('{}')).toEqual({ dependencies: {}, scopedRegistries: [] });
  });

  it.each([
    ['{', 'not valid JSON'],
    [
      '{\n  "dependencies": {\n    "com.a": "1.0.0"\n    "com.b": "1.0.0"\n  }\n}',
      "not valid JSON: expected ',' at line 4, column 5",
    ],
    ['{\n  "dependencies": {},\n}', 'at line 3, column 1'],
    ['{\n  // note\n}', 'comments are not allowed in JSON at line 2, column 3'],
    ['\uFEFF{"a": tru}', 'not valid JSON: unexpected character at line 1, column 7'],
    ['[]', 'not a JSON object'],
    ['{"dependencies": []}', '"dependencies" is not an object'],
    ['{"dependencies": {"com.a": 1}}', 'the version of "com.a" in "dependencies" is not a string'],
    ['{"scopedRegistries": {}}', '"scopedRegistries" is not an array'],
    ['{"scopedRegistries": [{"name": "r", "url": "u"}]}', 'scopedRegistries[0].scopes is not an array of strings'],
    ['{"scopedRegistries": [{"name": 1, "url": "u", "scopes": []}]}', 'scopedRegistries[0].name is not a string'],
  ])('refuses %s', (text, problem) => {
    expect(() => parseDependencyManifest(text)).toThrow(problem);
  });
});
