import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const src = (pkg: string) => fileURLToPath(new URL(`./packages/${pkg}/src/index.ts`, import.meta.url));

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
    include: ['packages/*/test/**/*.test.ts'],
    pool: 'forks',
    // Tests mostly wait on sockets and child processes; more workers than cores pays off.
    poolOptions: { forks: { maxForks: 4, minForks: 1 } },
    testTimeout: 60_000,
    hookTimeout: 120_000,
    reporters: process.env.CI ? ['default'] : ['default'],
  },
});
