import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import net from 'node:net';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import pg from 'pg';

/**
 * Throwaway PostgreSQL schemas, Redis key prefixes and S3 servers, so that test files running
 * in parallel (and several people's runs on one machine) never see each other's data.
 * `scripts/test.js` sets PKG_TEST_POSTGRES and PKG_TEST_REDIS when those services answer.
 */
export const testPostgresUrl: string | undefined = process.env.PKG_TEST_POSTGRES || undefined;
export const testRedisUrl: string | undefined = process.env.PKG_TEST_REDIS || undefined;

function uniqueName(prefix: string): string {
  return `${prefix}${Date.now().toString(36)}_${randomBytes(5).toString('hex')}`;
}

function withParam(url: string, key: string, value: string): string {
  const parsed = new URL(url);
  parsed.searchParams.set(key, value);
  return parsed.toString();
}

export interface TestPostgres {
  /** The database URL with `?schema=` naming a fresh schema (created by the first migrate). */
  url: string;
  schema: string;
  /** Drops the schema and everything in it. */
  drop(): Promise<void>;
}

const ABANDONED_AFTER_MS = 2 * 60 * 60 * 1000;
let janitorRan = false;

/**
 * Drops test schemas (`t_<time>_<random>`) older than two hours: left by a run that was killed.
 * Runs once per process; a younger schema may belong to a run in progress.
 */
export async function dropAbandonedSchemas(baseUrl = requireEnv(testPostgresUrl, 'PKG_TEST_POSTGRES')): Promise<number> {
  if (janitorRan) return 0;
  janitorRan = true;
  const client = new pg.Client({ connectionString: baseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ nspname: string }>(`SELECT nspname FROM pg_namespace WHERE nspname LIKE 't\\_%'`);
    let dropped = 0;
    for (const { nspname } of rows) {
      const created = parseInt(/^t_([0-9a-z]+)_[0-9a-f]+$/.exec(nspname)?.[1] ?? '', 36);
      if (!Number.isFinite(created) || Date.now() - created < ABANDONED_AFTER_MS) continue;
      await client.query(`DROP SCHEMA IF EXISTS "${nspname}" CASCADE`);
      dropped++;
    }
    return dropped;
  } finally {
    await client.end();
  }
}

export function freshPostgresSchema(baseUrl = requireEnv(testPostgresUrl, 'PKG_TEST_POSTGRES')): TestPostgres {
  const schema = uniqueName('t_');
  return {
    url: withParam(baseUrl, 'schema', schema),
    schema,
    async drop() {
      const client = new pg.Client({ connectionString: baseUrl });
      await client.connect();
      try {
        await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      } finally {
        await client.end();
      }
    },
  };
}

export interface TestRedis {
  /** The Redis URL with `?prefix=` naming a fresh key prefix. */
  url: string;
  prefix: string;
  /** Deletes every key under the prefix. */
  drop(): Promise<void>;
}

export function freshRedisPrefix(baseUrl = requireEnv(testRedisUrl, 'PKG_TEST_REDIS')): TestRedis {
  const prefix = `${uniqueName('t-')}:`;
  return {
    url: withParam(baseUrl, 'prefix', prefix),
    prefix,
    async drop() {
      const redis = new Redis(baseUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
      try {
        await redis.connect();
        let cursor = '0';
        do {
          const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
          if (keys.length > 0) await redis.del(...keys);
          cursor = next;
        } while (cursor !== '0');
      } finally {
        redis.disconnect();
      }
    },
  };
}

export interface TestS3 {
  /** `s3://<bucket>?endpoint=…&region=…`, as the `storage` setting takes it. */
  url: string;
  endpoint: string;
  bucket: string;
  /** AWS variables a spawned server needs to reach it. */
  env: Record<string, string>;
  /** Requests whose SigV4 signature the server verified, and those it refused (with why). */
  signatureStats(): Promise<{ verified: number; refused: number; refusals: Record<string, string>[] }>;
  /** Where the server keeps its buckets, one folder each. */
  directory: string;
  close(): Promise<void>;
}

const S3_CREDENTIALS = { AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER' };
const S3_SERVER_SCRIPT = fileURLToPath(new URL('../bin/s3-server.mjs', import.meta.url));

/**
 * Starts an S3-compatible server (@20minutes/s3rver, in a child process on 127.0.0.1, port 0)
 * with one empty bucket, and sets the AWS credential variables of this process for it when
 * they are unset. Strict: every request's SigV4 signature (and signed body hash) is verified
 * by our own check before the server sees it; a wrong one is 403 (see bin/s3-server.mjs).
 */
export async function startS3Server(): Promise<TestS3> {
  for (const [key, value] of Object.entries(S3_CREDENTIALS)) process.env[key] ??= value;
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const directory = await mkdtemp(path.join(tmpdir(), 'pkg-s3-'));
  const bucket = uniqueName('pkg-').replace(/_/g, '-');
  const child = spawn(process.execPath, ['--openssl-legacy-provider', S3_SERVER_SCRIPT, directory, bucket], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let port: number;
  try {
    port = await new Promise<number>((resolve, reject) => {
      const lines = createInterface({ input: child.stdout });
      lines.once('line', (line) => {
        lines.close();
        resolve((JSON.parse(line) as { port: number }).port);
      });
      child.once('exit', (code) => reject(new Error(`the S3 test server exited (${code}) before listening`)));
    });
  } catch (err) {
    await rm(directory, { recursive: true, force: true });
    throw err;
  }
  const endpoint = `http://127.0.0.1:${port}`;
  return {
    url: `s3://${bucket}?endpoint=${encodeURIComponent(endpoint)}&region=us-east-1`,
    endpoint,
    bucket,
    directory,
    env: { ...S3_CREDENTIALS, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    async signatureStats() {
      const res = await fetch(`${endpoint}/-/sigv4-stats`);
      return (await res.json()) as { verified: number; refused: number; refusals: Record<string, string>[] };
    },
    async close() {
      child.stdin.end();
      await exited;
      await rm(directory, { recursive: true, force: true });
    },
  };
}

export interface TestS3Bucket {
  /** `s3://<bucket>?endpoint=…&region=…`, as the `storage` setting takes it. */
  url: string;
  /** AWS variables a spawned server needs to reach it. */
  env: Record<string, string>;
  /** Removes the bucket and everything in it. */
  drop(): Promise<void>;
}

/** The S3 server this test process shares between its registries (started on first use). */
let sharedS3: Promise<{ endpoint: string; directory: string }> | undefined;

/**
 * A fresh, empty bucket on an S3 server that this process starts once and shares: a registry
 * per test then costs a bucket, not a server process. A test that counts the server's
 * signature checks starts a server of its own with `startS3Server`.
 */
export async function freshS3Bucket(): Promise<TestS3Bucket> {
  sharedS3 ??= startS3Server().then((server) => {
    // Stops with this process: the server exits when its stdin closes.
    return { endpoint: server.endpoint, directory: server.directory };
  });
  let server: { endpoint: string; directory: string };
  try {
    server = await sharedS3;
  } catch (err) {
    sharedS3 = undefined;
    throw err;
  }
  const bucket = uniqueName('pkg-').replace(/_/g, '-');
  const made = await fetch(`${server.endpoint}/-/buckets/${bucket}`, { method: 'PUT' });
  if (made.status !== 201)
    throw new Error(`the S3 test server did not make bucket ${bucket}: ${made.status} ${await made.text()}`);
  return {
    url: `s3://${bucket}?endpoint=${encodeURIComponent(server.endpoint)}&region=us-east-1`,
    env: { ...S3_CREDENTIALS, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    async drop() {
      await rm(path.join(server.directory, bucket), { recursive: true, force: true });
    },
  };
}

function requireEnv(value: string | undefined, name: string): string {
  if (!value) throw new Error(`${name} is not set: run the tests through scripts/test.js, or set it by hand`);
  return value;
}

export interface OwnRedisServer {
  url: string;
  port: number;
  /** Stops the server (SIGKILL: like a crash); `start` brings it back on the same port. */
  stop(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

/**
 * A redis-server of the test's own on a free port, for tests that stop Redis: never stop the
 * machine's shared one. Needs the `redis-server` binary on PATH.
 */
export async function startOwnRedisServer(): Promise<OwnRedisServer> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  const start = async () => {
    const proc = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    child = proc;
    await new Promise<void>((resolve, reject) => {
      let output = '';
      proc.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('Ready to accept connections')) resolve();
      });
      proc.once('error', reject);
      proc.once('exit', (code) => reject(new Error(`redis-server exited (${code}): ${output.slice(-500)}`)));
    });
  };
  const stop = async () => {
    const proc = child;
    child = undefined;
    if (!proc || proc.exitCode !== null) return;
    const exited = new Promise((resolve) => proc.once('exit', resolve));
    proc.kill('SIGKILL');
    await exited;
  };
  await start();
  return { url: `redis://127.0.0.1:${port}`, port, stop, start, close: stop };
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}
