/**
 * The seams of the source tree, checked on the files themselves: no import cycle among the
 * source files of any workspace, none between the top-level folders of a layered one, no storage driver reaching into another driver's files, the
 * metadata store reached by its parts only, and no V8 flag changed while the server runs
 * (memory bounds are start options of `node`).
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const packagesRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const WORKSPACES = ['protocol', 'server', 'cli', 'testkit'];

/** Every `.ts` file under `dir`. */
function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => path.join(entry.parentPath, entry.name));
}

/** File → the files of the same workspace it imports (static and dynamic, types included). */
function importGraph(files: readonly string[]): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    graph.set(
      file,
      importedFiles
        .map((imported) => imported.fileName)
        .filter((name) => name.startsWith('.'))
        .map((name) => path.resolve(path.dirname(file), name.replace(/\.js$/, '.ts'))),
    );
  }
  return graph;
}

/** The strongly connected groups of more than one file (Tarjan): each is an import cycle. */
export function importCycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (file: string): void => {
    index.set(file, next);
    low.set(file, next);
    next++;
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file) ?? []) {
      if (!graph.has(target)) continue;
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file)!, low.get(target)!));
      } else if (onStack.has(target)) {
        low.set(file, Math.min(low.get(file)!, index.get(target)!));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const group: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      group.push(member);
    } while (member !== file);
    if (group.length > 1 || (graph.get(file) ?? []).includes(file)) cycles.push(group.sort());
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return cycles;
}

const relative = (file: string) => path.relative(packagesRoot, file);

describe('import cycles', () => {
  it.each(WORKSPACES)('none among the source files of packages/%s', (workspace) => {
    const graph = importGraph(sourceFiles(path.join(packagesRoot, workspace, 'src')));
    expect(graph.size).toBeGreaterThan(5);
    expect(importCycles(graph).map((cycle) => cycle.map(relative))).toEqual([]);
  });

  it('are found, however long', () => {
    const graph = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a', 'd']],
      ['d', []],
      ['e', ['e']],
    ]);
    expect(importCycles(graph)).toEqual([['a', 'b', 'c'], ['e']]);
  });
});

/**
 * Folder → the folders it imports: each top-level folder of `src` is one node, and so is each
 * file directly in `src` (app.ts, context.ts, …), named by its file name.
 */
export function folderGraph(src: string): Map<string, string[]> {
  const nodeOf = (file: string) => path.relative(src, file).split(path.sep)[0]!;
  const graph = new Map<string, Set<string>>();
  for (const [file, targets] of importGraph(sourceFiles(src))) {
    const from = nodeOf(file);
    const edges = graph.get(from) ?? new Set<string>();
    graph.set(from, edges);
    for (const target of targets) {
      if (!target.startsWith(src + path.sep)) continue;
      const to = nodeOf(target);
      if (to !== from) edges.add(to);
    }
  }
  return new Map([...graph].map(([node, edges]) => [node, [...edges].sort()]));
}

/** Each folder cycle with the file imports that make it, for a failure a person can act on. */
export function folderCycles(src: string): string[] {
  const graph = folderGraph(src);
  const nodeOf = (file: string) => path.relative(src, file).split(path.sep)[0]!;
  const files = importGraph(sourceFiles(src));
  return importCycles(graph).map((cycle) => {
    const members = new Set(cycle);
    const crossings = [...files].flatMap(([file, targets]) =>
      targets
        .filter((target) => members.has(nodeOf(file)) && members.has(nodeOf(target)) && nodeOf(file) !== nodeOf(target))
        .map((target) => `${path.relative(src, file)} -> ${path.relative(src, target)}`),
    );
    return `${cycle.join(' <-> ')}: ${crossings.join(', ')}`;
  });
}

/** Workspaces whose top-level folders must form a DAG (docs/architecture.md draws the layers). */
const LAYERED_WORKSPACES = ['server', 'cli'];

describe('folder cycles', () => {
  it.each(LAYERED_WORKSPACES)('none among the top-level folders of packages/%s/src', (workspace) => {
    const src = path.join(packagesRoot, workspace, 'src');
    expect(folderGraph(src).size).toBeGreaterThan(5);
    expect(folderCycles(src)).toEqual([]);
  });

  it('are found between folders whose files form no cycle', () => {
    const src = path.join(packagesRoot, 'server/src');
    // A cycle of folders made of files that import each other one way only.
    const graph = new Map([
      ['storage', ['uplinks']],
      ['uplinks', ['services']],
      ['services', ['storage']],
      ['protocol-rules', []],
    ]);
    expect(importCycles(graph)).toEqual([['services', 'storage', 'uplinks']]);
    expect(folderGraph(src).get('app.ts')).toContain('routes');
  });
});

describe('storage drivers', () => {
  const driversDir = path.join(packagesRoot, 'server/src/storage/drivers');
  const driverOf = (file: string) => path.relative(driversDir, file).split(path.sep)[0];

  it('import no file of another driver', () => {
    const files = sourceFiles(driversDir);
    const crossings: string[] = [];
    for (const [file, targets] of importGraph(files)) {
      for (const target of targets) {
        if (target.startsWith(driversDir + path.sep) && driverOf(target) !== driverOf(file)) {
          crossings.push(`${relative(file)} imports ${relative(target)}`);
        }
      }
    }
    expect(new Set(files.map(driverOf))).toEqual(new Set(['fs', 'memory', 'postgres', 'redis', 's3', 'sqlite']));
    expect(crossings).toEqual([]);
  });

  it('are named by no file outside storage/ (create-storage.ts picks them)', () => {
    const serverSrc = path.join(packagesRoot, 'server/src');
    const outside = [...importGraph(sourceFiles(serverSrc))]
      .filter(([file]) => !file.startsWith(path.join(serverSrc, 'storage') + path.sep))
      .flatMap(([file, targets]) => targets.filter((t) => t.startsWith(driversDir)).map(() => relative(file)));
    expect([...new Set(outside)]).toEqual([]);
  });
});

describe('the metadata store', () => {
  const serverSrc = path.join(packagesRoot, 'server/src');
  const under = (file: string, ...dirs: string[]) => dirs.some((dir) => file.startsWith(path.join(serverSrc, dir) + path.sep));

  it('is named whole only in storage/: services and admin code receive AccountStores or PackageStore', () => {
    const naming = sourceFiles(serverSrc)
      .filter((file) => !under(file, 'storage') && /\bMetadataStore\b/.test(readFileSync(file, 'utf8')))
      .map(relative);
    expect(naming).toEqual([]);
  });

  it('is reached by services only: routes, plugins, the HTTP layer and the web pages call services', () => {
    const reaching = sourceFiles(serverSrc)
      .filter((file) => under(file, 'routes', 'plugins', 'http', 'web'))
      .filter((file) => /deps\.(registry|packages|database)\b/.test(readFileSync(file, 'utf8')))
      .map(relative);
    expect(reaching).toEqual([]);
  });
});

describe('V8 and libuv options', () => {
  it('are never changed by the running server', () => {
    const offenders = sourceFiles(path.join(packagesRoot, 'server/src'))
      .concat(path.join(packagesRoot, 'server/bin/pkg-registry.js'))
      // The thread pool's size may be read, and given to a child's environment at its start (the
      // relaunch of node-options.ts); set in the server's own environment it would come too late.
      .filter((file) =>
        /setFlagsFromString|runInNewContext|expose-gc|process\.env(\.UV_THREADPOOL_SIZE|\[['"]UV_THREADPOOL_SIZE['"]\])\s*=[^=]/.test(
          readFileSync(file, 'utf8'),
        ),
      )
      .map(relative);
    expect(offenders).toEqual([]);
  });
});
