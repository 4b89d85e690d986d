import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { globSync } from 'tinyglobby';
import { describe, expect, it } from 'vitest';

/**
 * Every repository path the README and docs/ name exists: a link target, or a path written in
 * backticks that starts at one of the repository's folders (`packages/…`, `docs/…`, or `src/…`
 * and `test/…`, which the docs write relative to the package they describe). `<name>` stands for
 * any one path segment and `*` is a glob; either must match at least one file.
 */
const root = fileURLToPath(new URL('../../../../', import.meta.url));
const WORKSPACES = readdirSync(path.join(root, 'packages'));
const REPOSITORY_FOLDERS = new Set([
  'packages',
  'docs',
  'scripts',
  'bench',
  'test',
  'src',
  'bin',
  'web-assets',
  'protocol',
  '.ci',
]);
const DOCUMENTS = [
  'README.md',
  ...readdirSync(path.join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

/** Backticked repository paths and relative link targets of one markdown file. */
export function namedPaths(markdown: string): { backticked: string[]; links: string[] } {
  const backticked = [...markdown.matchAll(/`([^`\s]+)`/g)]
    .map((m) => m[1]!)
    .filter((token) => /^[\w.<>*-]+(\/[\w.<>*@-]*)+$/.test(token))
    .filter((token) => REPOSITORY_FOLDERS.has(token.split('/')[0]!));
  const links = [...markdown.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((m) => m[1]!.split('#')[0]!)
    .filter((target) => target.length > 0 && !/^[a-z][a-z+.-]*:/i.test(target));
  return { backticked: [...new Set(backticked)], links: [...new Set(links)] };
}

function exists(candidate: string): boolean {
  const pattern = candidate.replace(/<[^>/]+>/g, '*');
  if (!pattern.includes('*')) return existsSync(path.join(root, pattern));
  const bare = pattern.replace(/\/$/, '');
  return globSync([bare, `${bare}/**`], { cwd: root, onlyFiles: false, dot: true, ignore: ['**/node_modules/**'] }).length > 0;
}

/** Where a backticked path may live: the repository root, the document's folder, or a workspace. */
function resolves(document: string, named: string): boolean {
  const bases = ['', path.dirname(document), ...WORKSPACES.map((w) => `packages/${w}`)];
  return bases.some((base) => exists(path.posix.join(base, named)));
}

describe('repository paths named in the README and docs/', () => {
  it.each(DOCUMENTS)('%s names only paths that exist', (document) => {
    const { backticked, links } = namedPaths(readFileSync(path.join(root, document), 'utf8'));
    const missing = [
      ...backticked.filter((named) => !resolves(document, named)),
      ...links.filter((target) => !exists(path.posix.join(path.dirname(document), target))),
    ];
    expect(missing).toEqual([]);
  });

  it('finds the paths it checks, and a path that is not there fails', () => {
    const { backticked, links } = namedPaths(
      'See `packages/server/src/app.ts`, `test/gone.test.ts`, `<data>/global/`, `npm test`, [a](docs/cli.md#x), [b](https://x.io).',
    );
    expect(backticked).toEqual(['packages/server/src/app.ts', 'test/gone.test.ts']);
    expect(links).toEqual(['docs/cli.md']);
    expect(resolves('README.md', 'packages/server/src/app.ts')).toBe(true);
    expect(resolves('docs/security.md', 'test/gone.test.ts')).toBe(false);
    expect(resolves('docs/cli.md', 'src/engines/<engine>/')).toBe(true);
  });
});
