import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { testFiles } from './vitest.test-files.js';

const src = (pkg: string) => fileURLToPath(new URL(`./packages/${pkg}/src/index.ts`, import.meta.url));

/**
 * The verification of `npm run release`: installs the tarballs in release/ into an empty prefix
 * and runs the single executable. It builds native modules (better-sqlite3) from source, which
 * takes minutes, so it is not part of `npm test`; packages/cli/test/e2e/version.test.ts is the
 * short form there.
 */
export default defineConfig({
  resolve: { alias: { '@pkg/protocol': src('protocol'), '@pkg/testkit': src('testkit'), '@pkg/server': src('server') } },
  test: {
    include: testFiles('release', ['test/release/**/*.test.ts']),
    passWithNoTests: false,
    testTimeout: 120_000,
    hookTimeout: 900_000,
    pool: 'forks',
  },
});
