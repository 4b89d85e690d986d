/**
 * The client's error catalogue is a leaf that imports nothing of ours, so every layer may use it.
 * That its top-level folders import each other without a cycle is checked with the server's by
 * packages/server/test/unit/source-seams.test.ts (LAYERED_WORKSPACES).
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const src = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => path.join(entry.parentPath, entry.name));
}

/** The files of ours `file` imports (static, dynamic and type-only alike). */
function importsOf(file: string): string[] {
  const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
  return importedFiles
    .map((imported) => imported.fileName)
    .filter((name) => name.startsWith('.'))
    .map((name) => path.resolve(path.dirname(file), name.replace(/\.js$/, '.ts')));
}

describe('the folders of packages/cli/src', () => {
  it('keep the error catalogue a leaf: it imports nothing of ours', () => {
    const catalogue = path.join(src, 'errors', 'client-errors.ts');
    expect(readFileSync(catalogue, 'utf8')).toContain('export const CLIENT_ERRORS');
    expect(sourceFiles(path.join(src, 'errors')).flatMap(importsOf)).toEqual([]);
  });
});
