import { describe, expect, it } from 'vitest';
import { testFiles } from '../../../../vitest.test-files.js';

describe('test projects', () => {
  it('refuses a project whose include patterns match no file', () => {
    expect(() => testFiles('gone', ['test/nowhere/**/*.test.ts'])).toThrow(
      "Test project 'gone' matches no test file (include: test/nowhere/**/*.test.ts).",
    );
  });

  it('keeps the patterns of a project that finds files, the release verification among them', () => {
    expect(testFiles('release', ['test/release/**/*.test.ts'])).toEqual(['test/release/**/*.test.ts']);
    expect(testFiles('embedded', ['packages/*/test/**/*.test.ts'])).toEqual(['packages/*/test/**/*.test.ts']);
  });
});
