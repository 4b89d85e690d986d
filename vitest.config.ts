import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const src = (pkg: string) => fileURLToPath(new URL(`./packages/${pkg}/src/index.ts`, import.meta.url));

/**
 * Suites that run a second time on PostgreSQL + S3 + Redis (the scale-out profile): every test
 * that talks HTTP to a registry started with `startRegistry`, which reads PKG_TEST_PROFILE.
 * Only when scripts/test.js found PostgreSQL and Redis.
 */
const SCALE_OUT_SUITES = [
  'packages/server/test/http/**/*.test.ts',
  'packages/server/test/clients/**/*.test.ts',
  'packages/server/test/user-auth.test.ts',
  'packages/server/test/user-auth-policies.test.ts',
  'packages/server/test/smoke.test.ts',
  'packages/server/test/search-*.test.ts',
  'packages/server/test/download-counts.test.ts',
  'packages/server/test/tenants.test.ts',
  'packages/server/test/rate-limits.test.ts',
  'packages/server/test/web/web-*.test.ts',
  'packages/server/test/web/npm-web-login.test.ts',
  'packages/cli/test/e2e/login.test.ts',
];
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
    pool: 'forks',
    // Tests mostly wait on sockets and child processes; more workers than cores pays off.
    poolOptions: { forks: { maxForks: 4, minForks: 1 } },
    testTimeout: 60_000,
    hookTimeout: 120_000,
    reporters: process.env.CI ? ['default'] : ['default'],
    projects: [
      { extends: true, test: { name: 'embedded', include: ['packages/*/test/**/*.test.ts'] } },
      ...(scaleOutAvailable
        ? [
            {
              extends: true,
              test: {
                name: 'scale-out',
                include: SCALE_OUT_SUITES,
                // Runs every driver itself, whatever the profile.
                exclude: ['packages/server/test/search-index.contract.test.ts'],
                env: { PKG_TEST_PROFILE: 'scale-out' },
              },
            },
          ]
        : []),
    ],
  },
});
