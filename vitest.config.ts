import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { testFiles } from './vitest.test-files.js';

const src = (pkg: string) => fileURLToPath(new URL(`./packages/${pkg}/src/index.ts`, import.meta.url));

/**
 * Folders whose suites run a second time on PostgreSQL + S3 + Redis (the scale-out profile):
 * each of their tests talks HTTP to a registry started with `startRegistry`, which reads
 * PKG_TEST_PROFILE. A test of that kind goes in one of these folders; a test that picks its
 * drivers itself (contract/, storage/) or spawns processes (process/) goes elsewhere.
 * Only when scripts/test.js found PostgreSQL and Redis.
 */
const SCALE_OUT_FOLDERS = ['packages/server/test/http', 'packages/server/test/web', 'packages/server/test/clients'];
/** The client's one end-to-end suite that signs in against both profiles. */
const SCALE_OUT_CLIENT_SUITES = ['packages/cli/test/e2e/login.test.ts'];
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
    poolOptions: { forks: { maxForks: 4, minForks: 1 } },
    testTimeout: 60_000,
    hookTimeout: 120_000,
    reporters: process.env.CI ? ['default'] : ['default'],
    projects: [
      { extends: true, test: { name: 'embedded', include: testFiles('embedded', ['packages/*/test/**/*.test.ts']) } },
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
