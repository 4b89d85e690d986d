import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig } from 'vitest/config';
import { testFiles } from './vitest.test-files.js';

const src = (pkg: string) => fileURLToPath(new URL(`./packages/${pkg}/src/index.ts`, import.meta.url));

/**
 * Folders whose suites run a second time on PostgreSQL + S3 + Redis (the scale-out profile):
 * each of their tests talks HTTP to a registry started with `startRegistry`, which reads
 * PKG_TEST_PROFILE. A test of that kind goes in one of these folders; a test that picks its
 * drivers itself (contract/, storage/) or spawns processes (process/) goes elsewhere.
 * Only when scripts/test.js found PostgreSQL and Redis.
 */
const SCALE_OUT_FOLDERS = ['packages/server/test/http', 'packages/server/test/web'];
/**
 * The real-client suites that also run on the scale-out profile (with one npm line on each profile:
 * testkit's `npmLines`): the ones whose server side reads or writes what the backings keep
 * (accounts, tokens, second factors, advisories, packages). pnpm, yarn, `_auth` and the uplink
 * installs drive the same HTTP answers on both profiles and run on the embedded one only, as
 * does `pkg login` (the accounts and tokens it makes are proved on both by test/http/user-auth*).
 */
const SCALE_OUT_CLIENT_SUITES = [
  'packages/server/test/clients/npm.test.ts',
  'packages/server/test/clients/npm-audit.test.ts',
  'packages/server/test/clients/npm-refusal-reasons.test.ts',
  'packages/server/test/clients/npm-tokens.test.ts',
  'packages/server/test/clients/npm-two-factor.test.ts',
];
/**
 * Spawned-process suites that choose their profile from PKG_TEST_PROFILE themselves: the short
 * form of the reliability suite (docs/reliability.md), run on both profiles.
 */
const SCALE_OUT_PROCESS_SUITES = ['packages/server/test/process/reliability.test.ts'];
const scaleOutAvailable = Boolean(process.env.PKG_TEST_POSTGRES && process.env.PKG_TEST_REDIS);

export default defineConfig({
  resolve: {
    // Tests run the TypeScript sources of every workspace, so one module instance exists per
    // package (ProtocolError instanceof checks hold); spawned binaries use the built dist/.
    alias: {
      '@pkg/protocol': src('protocol'),
      '@pkg/server': src('server'),
      '@pkg/cli': src('cli'),
      '@pkg/testkit': src('testkit'),
    },
  },
  test: {
    // A run that finds no test file fails (every project must find some: vitest.test-files.ts).
    passWithNoTests: false,
    pool: 'forks',
    // Tests mostly wait on sockets and child processes; more workers than cores pays off.
    // A worker runs file after file with the modules it has loaded: loading the server's module
    // graph afresh for each file cost more than most files' tests. Test files therefore leave no
    // global state behind (timers, environment, listeners restored in their hooks). The pool
    // keeps its workers (minForks = maxForks): with fewer, tinypool's ending of spare workers
    // failed runs with "Terminating worker thread" (vitest-dev/vitest#8564).
    isolate: false,
    poolOptions: { forks: { maxForks: 4, minForks: 4 } },
    testTimeout: 60_000,
    hookTimeout: 120_000,
    reporters: process.env.CI ? ['default'] : ['default'],
    projects: [
      {
        extends: true,
        test: {
          name: 'embedded',
          include: testFiles('embedded', ['packages/*/test/**/*.test.ts']),
          // What only the scale-out profile has (several nodes on shared backings) is tested in
          // `*.scale-out.test.ts` files of its folders, run by that project alone.
          exclude: [...configDefaults.exclude, '**/*.scale-out.test.ts'],
        },
      },
      ...(scaleOutAvailable
        ? [
            {
              extends: true as const,
              test: {
                name: 'scale-out',
                include: testFiles('scale-out', [
                  ...SCALE_OUT_FOLDERS.map((folder) => `${folder}/**/*.test.ts`),
                  ...SCALE_OUT_CLIENT_SUITES,
                  ...SCALE_OUT_PROCESS_SUITES,
                ]),
                env: { PKG_TEST_PROFILE: 'scale-out' },
              },
            },
          ]
        : []),
    ],
  },
});
