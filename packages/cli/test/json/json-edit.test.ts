import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { appendJsonElement, detectJsonStyle, removeJsonValue, setJsonValue } from '../../src/json/json-edit.js';
import { manifest, packageName, textStyle, version, writeInStyle } from './json-text.arb.js';

describe('detectJsonStyle', () => {
  it.each([
    ['{\n  "a": 1\n}\n', '  ', '\n'],
    ['{\r\n    "a": 1\r\n}', '    ', '\r\n'],
    ['{\n\t"a": 1\n}', '\t', '\n'],
    ['{"a": 1}', '  ', '\n'],
  ])('%j', (text, indent, eol) => {
    expect(detectJsonStyle(text)).toEqual({ indent, eol });
  });
});

describe('setJsonValue', () => {
  it('replaces a value and nothing else', () => {
    const text = '{\n  "dependencies": {\n    "com.a": "1.0.0",\n    "com.b": "2.0.0"\n  },\n  "testables": ["x", "y"]\n}';
    expect(setJsonValue(text, ['dependencies', 'com.a'], '1.2.0')).toBe(
      '{\n  "dependencies": {\n    "com.a": "1.2.0",\n    "com.b": "2.0.0"\n  },\n  "testables": ["x", "y"]\n}',
    );
  });

  it('appends a new key after the last one, in the file’s indentation', () => {
    const text = '{\r\n    "dependencies": {\r\n        "com.b": "1.0.0"\r\n    },\r\n    "testables": ["x", "y"]\r\n}';
    expect(setJsonValue(text, ['dependencies', 'com.a'], '1.0.0')).toBe(
      '{\r\n    "dependencies": {\r\n        "com.b": "1.0.0",\r\n        "com.a": "1.0.0"\r\n    },\r\n    "testables": ["x", "y"]\r\n}',
    );
  });

  it('inserts in sorted position when asked and the keys are sorted', () => {
    const text = '{\n\t"dependencies": {\n\t\t"com.a": "1",\n\t\t"com.c": "1"\n\t}\n}';
    expect(setJsonValue(text, ['dependencies', 'com.b'], '1', 'sorted')).toBe(
      '{\n\t"dependencies": {\n\t\t"com.a": "1",\n\t\t"com.b": "1",\n\t\t"com.c": "1"\n\t}\n}',
    );
    expect(setJsonValue(text, ['dependencies', 'com.0'], '1', 'sorted')).toBe(
      '{\n\t"dependencies": {\n\t\t"com.0": "1",\n\t\t"com.a": "1",\n\t\t"com.c": "1"\n\t}\n}',
    );
  });

  it('appends when the keys are not sorted, even when asked for sorted', () => {
    const text = '{\n  "dependencies": {\n    "com.c": "1",\n    "com.a": "1"\n  }\n}';
    expect(setJsonValue(text, ['dependencies', 'com.b'], '1', 'sorted')).toBe(
      '{\n  "dependencies": {\n    "com.c": "1",\n    "com.a": "1",\n    "com.b": "1"\n  }\n}',
    );
  });

  it('fills an empty object, on one line or two', () => {
    expect(setJsonValue('{\n  "dependencies": {}\n}', ['dependencies', 'com.a'], '1')).toBe(
      '{\n  "dependencies": {\n    "com.a": "1"\n  }\n}',
    );
    expect(setJsonValue('{\n  "dependencies": {\n  }\n}', ['dependencies', 'com.a'], '1')).toBe(
      '{\n  "dependencies": {\n    "com.a": "1"\n  }\n}',
    );
    expect(setJsonValue('{}', ['dependencies'], {})).toBe('{\n  "dependencies": {}\n}');
  });

  it('creates missing objects on the way', () => {
    expect(setJsonValue('{\n    "a": 1\n}\n', ['dependencies', 'com.a'], '1')).toBe(
      '{\n    "a": 1,\n    "dependencies": {\n        "com.a": "1"\n    }\n}\n',
    );
  });

  it('writes a new array of objects expanded, in the file’s style', () => {
    const text = '{\r\n\t"dependencies": {\r\n\t\t"com.a": "1"\r\n\t}\r\n}\r\n';
    expect(setJsonValue(text, ['scopedRegistries'], [{ name: 'r', url: 'https://r', scopes: ['com.a'] }])).toBe(
      '{\r\n\t"dependencies": {\r\n\t\t"com.a": "1"\r\n\t},\r\n\t"scopedRegistries": [\r\n\t\t{\r\n\t\t\t"name": "r",\r\n\t\t\t"url": "https://r",\r\n\t\t\t"scopes": [\r\n\t\t\t\t"com.a"\r\n\t\t\t]\r\n\t\t}\r\n\t]\r\n}\r\n',
    );
  });

  it('keeps a one-line array on one line when it replaces it', () => {
    const text = '{\n  "scopes": ["com.a", "com.c"],\n  "b": 1\n}';
    expect(setJsonValue(text, ['scopes'], ['com.a', 'com.b', 'com.c'])).toBe(
      '{\n  "scopes": ["com.a", "com.b", "com.c"],\n  "b": 1\n}',
    );
  });

  it('adds to a one-line object on the same line', () => {
    expect(setJsonValue('{"dependencies": {"com.a": "1"}}', ['dependencies', 'com.b'], '2')).toBe(
      '{"dependencies": {"com.a": "1", "com.b": "2"}}',
    );
  });

  it('refuses text that is not strict JSON', () => {
    expect(() => setJsonValue('{"a": 1,}', ['a'], 2)).toThrow();
    expect(() => setJsonValue('{"a": 1 // c\n}', ['a'], 2)).toThrow();
    expect(() => setJsonValue('', ['a'], 2)).toThrow();
  });

  it('refuses to descend into a value that is not an object', () => {
    expect(() => setJsonValue('{"dependencies": "x"}', ['dependencies', 'com.a'], '1')).toThrow();
  });

  it('writes exactly what the file’s own style would write, for replaced and new keys', () => {
    fc.assert(
      fc.property(manifest(), textStyle(), packageName(), version(), (value, style, name, newVersion) => {
        const text = writeInStyle(value, style);
        const dependencies = value.dependencies as Record<string, string>;
        const expected = structuredClone(value);
        (expected.dependencies as Record<string, string>)[name] = newVersion;
        const edited = setJsonValue(text, ['dependencies', name], newVersion);
        if (Object.keys(dependencies).length > 0) expect(edited).toBe(writeInStyle(expected, style));
        expect(JSON.parse(edited)).toEqual(expected);
      }),
    );
  });

  it('undoes exactly with removeJsonValue when it added a key', () => {
    fc.assert(
      fc.property(manifest(), textStyle(), packageName(), version(), fc.boolean(), (value, style, name, v, sorted) => {
        const dependencies = value.dependencies as Record<string, string>;
        fc.pre(!(name in dependencies) && Object.keys(dependencies).length > 0);
        const text = writeInStyle(value, style);
        const added = setJsonValue(text, ['dependencies', name], v, sorted ? 'sorted' : 'end');
        expect(removeJsonValue(added, ['dependencies', name])).toBe(text);
      }),
    );
  });
});

describe('removeJsonValue', () => {
  const text = '{\n  "dependencies": {\n    "com.a": "1",\n    "com.b": "2",\n    "com.c": "3"\n  }\n}\n';

  it.each([
    ['com.a', '{\n  "dependencies": {\n    "com.b": "2",\n    "com.c": "3"\n  }\n}\n'],
    ['com.b', '{\n  "dependencies": {\n    "com.a": "1",\n    "com.c": "3"\n  }\n}\n'],
    ['com.c', '{\n  "dependencies": {\n    "com.a": "1",\n    "com.b": "2"\n  }\n}\n'],
    ['com.x', text],
  ])('removes %s', (name, expected) => {
    expect(removeJsonValue(text, ['dependencies', name])).toBe(expected);
  });

  it('leaves an empty object when the last key goes', () => {
    expect(removeJsonValue('{\n  "dependencies": {\n    "com.a": "1"\n  }\n}', ['dependencies', 'com.a'])).toBe(
      '{\n  "dependencies": {}\n}',
    );
  });

  it('removes array elements', () => {
    const registries = '{\n  "r": [\n    {"n": 1},\n    {"n": 2}\n  ]\n}';
    expect(removeJsonValue(registries, ['r', 0])).toBe('{\n  "r": [\n    {"n": 2}\n  ]\n}');
    expect(removeJsonValue(registries, ['r', 1])).toBe('{\n  "r": [\n    {"n": 1}\n  ]\n}');
  });
});

describe('appendJsonElement', () => {
  it('appends to an expanded array in its style', () => {
    const text = '{\n    "r": [\n        {\n            "n": 1\n        }\n    ]\n}';
    expect(appendJsonElement(text, ['r'], { n: 2 })).toBe(
      '{\n    "r": [\n        {\n            "n": 1\n        },\n        {\n            "n": 2\n        }\n    ]\n}',
    );
  });

  it('fills an empty array', () => {
    expect(appendJsonElement('{\n  "r": []\n}', ['r'], 'x')).toBe('{\n  "r": [\n    "x"\n  ]\n}');
  });
});
