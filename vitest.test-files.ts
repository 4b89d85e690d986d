import { fileURLToPath } from 'node:url';
import { globSync } from 'tinyglobby';

const root = fileURLToPath(new URL('.', import.meta.url));

/**
 * A test project's include patterns, refused when they match no file: vitest passes a run in
 * which one project of several found nothing, so a moved folder or an ignored file (as
 * test/release/ once was) would silently stop being tested.
 */
export function testFiles(project: string, include: string[]): string[] {
  const found = globSync(include, { cwd: root, ignore: ['**/node_modules/**', '**/dist/**'] });
  if (found.length === 0) {
    throw new Error(`Test project '${project}' matches no test file (include: ${include.join(', ')}).`);
  }
  return include;
}
