/**
 * The client's layers, checked on the files themselves: its top-level folders (and the files
 * beside them) import each other without a cycle, so the folder tree can be drawn as layers
 * (docs/architecture.md draws it), and the error catalogue is a leaf that imports nothing of ours.
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

/** A file's top-level folder under src/, or the file itself when it sits at the top. */
function unitOf(file: string): string {
  return path.relative(src, file).split(path.sep)[0]!;
}

/** Folder → the folders it imports, each with one file import that shows it. */
function folderGraph(): Map<string, Map<string, string>> {
  const graph = new Map<string, Map<string, string>>();
  for (const file of sourceFiles(src)) {
    const from = unitOf(file);
    const edges = graph.get(from) ?? new Map<string, string>();
    graph.set(from, edges);
    for (const target of importsOf(file)) {
      const to = unitOf(target);
      if (to !== from && !edges.has(to)) edges.set(to, `${path.relative(src, file)} → ${path.relative(src, target)}`);
    }
  }
  return graph;
}

/** The strongly connected groups of more than one node (Tarjan): each is a cycle. */
export function cycles(graph: ReadonlyMap<string, Iterable<string>>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, next);
    low.set(node, next++);
    stack.push(node);
    onStack.add(node);
    for (const target of graph.get(node) ?? []) {
      if (!graph.has(target)) continue;
      if (!index.has(target)) {
        visit(target);
        low.set(node, Math.min(low.get(node)!, low.get(target)!));
      } else if (onStack.has(target)) {
        low.set(node, Math.min(low.get(node)!, index.get(target)!));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const group: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      group.push(member);
    } while (member !== node);
    if (group.length > 1) found.push(group.sort());
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}

describe('the folders of packages/cli/src', () => {
  it('import each other without a cycle', () => {
    const graph = folderGraph();
    expect(graph.size).toBeGreaterThan(10);
    const named = new Map([...graph].map(([folder, edges]) => [folder, [...edges.keys()]]));
    // Each cycle with the imports that close it, so a failure says which line to move.
    const explained = cycles(named).map((group) =>
      group.flatMap((folder) => [...graph.get(folder)!].filter(([to]) => group.includes(to)).map(([, why]) => why)),
    );
    expect(explained).toEqual([]);
  });

  it('keep the error catalogue a leaf: it imports nothing of ours', () => {
    const catalogue = path.join(src, 'errors', 'client-errors.ts');
    expect(readFileSync(catalogue, 'utf8')).toContain('export const CLIENT_ERRORS');
    expect(sourceFiles(path.join(src, 'errors')).flatMap(importsOf)).toEqual([]);
  });

  it('find a cycle however long', () => {
    const graph = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a', 'd']],
      ['d', []],
    ]);
    expect(cycles(graph)).toEqual([['a', 'b', 'c']]);
  });
});
