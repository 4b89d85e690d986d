// The scale-out configuration of the benchmark: PostgreSQL (a fresh schema, dropped afterwards),
// Redis (a fresh key prefix) and a tarball store shared by the nodes (a directory, or S3).
import { mkdirSync } from 'node:fs';
import path from 'node:path';

function withParam(url, key, value) {
  const parsed = new URL(url);
  parsed.searchParams.set(key, value);
  return parsed.toString();
}

export async function prepareScaleOut({ args, workDir, log }) {
  const env = process.env;
  const postgres = args.postgres ?? env.PKG_BENCH_POSTGRES ?? env.PKG_TEST_POSTGRES ?? 'postgres://postgres@127.0.0.1:5432/test';
  const redis = args.redis ?? env.PKG_BENCH_REDIS ?? env.PKG_TEST_REDIS ?? 'redis://127.0.0.1:6379';
  const id = `${Date.now().toString(36)}_${process.pid}`;
  const schema = `bench_${id}`;
  let storage = args.storage;
  if (!storage) {
    storage = path.join(workDir, 'shared-tarballs');
    mkdirSync(storage, { recursive: true });
  }
  log(
    `scale-out: PostgreSQL schema ${schema}, Redis prefix bench-${id}:, tarballs in ${storage.startsWith('s3://') ? storage : 'a shared directory'}`,
  );
  return {
    flags: [
      '--database',
      withParam(postgres, 'schema', schema),
      '--storage',
      storage,
      '--redis',
      withParam(redis, 'prefix', `bench-${id}:`),
    ],
    env: {},
    async cleanup() {
      // `pg` is the benchmark's own dependency (bench/package.json).
      const { default: pg } = await import('pg');
      const client = new pg.Client({ connectionString: postgres });
      await client.connect();
      try {
        await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      } finally {
        await client.end();
      }
    },
  };
}
