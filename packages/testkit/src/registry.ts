import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { dropAbandonedSchemas, freshPostgresSchema, freshRedisPrefix, freshS3Bucket } from './backing-services.js';
import { leakedTokens } from './issued-tokens.js';
import {
  buildApp,
  createStorage,
  serverDeps,
  loadConfig,
  readTlsFiles,
  type BuiltApp,
  type Config,
  type Storage,
} from '@pkg/server';

export interface TestRegistry extends BuiltApp {
  /** Base URL, e.g. `http://127.0.0.1:39211` (`https://` when tlsCert/tlsKey are set). */
  url: string;
  port: number;
  config: Config;
  storage: Storage;
  dataDir: string;
  /** Log lines written so far. */
  logLines: string[];
  close(): Promise<void>;
}

export interface StartRegistryOptions {
  /** Setting overrides, as they would come from flags (strings) or a config file. */
  settings?: Record<string, string | number | boolean>;
  /** Reuse a data directory (restart tests); a fresh temporary one otherwise. */
  dataDir?: string;
  /** Injected clock. */
  now?: () => Date;
  /**
   * Collect the JSON-lines log at level `info` (unless settings say otherwise) into `logLines`.
   * The log is collected anyway unless PKG_TEST_LOG_LEVEL sends it to stdout, and `close()` fails
   * when a token a test received through this kit appears in it.
   */
  captureLogs?: boolean;
  /**
   * Which storage the registry runs on: `embedded` (SQLite + files) or `scale-out` (PostgreSQL,
   * S3 and Redis, each fresh for this registry). Default: PKG_TEST_PROFILE, else `embedded`.
   */
  profile?: TestProfile;
}

export type TestProfile = 'embedded' | 'scale-out';

/** The profile suites run on unless they choose: `PKG_TEST_PROFILE=scale-out` runs them all on PostgreSQL + S3 + Redis. */
export function testProfile(): TestProfile {
  const value = process.env.PKG_TEST_PROFILE ?? 'embedded';
  if (value !== 'embedded' && value !== 'scale-out')
    throw new Error(`PKG_TEST_PROFILE must be embedded or scale-out, got '${value}'`);
  return value;
}

/** Fresh PostgreSQL schema, S3 server and Redis prefix for one registry (or several sharing them). */
export interface ScaleOutBacking {
  /** `database`, `storage` and (unless left out) `redis`. */
  settings: Record<string, string>;
  /** Variables a spawned server process needs (AWS credentials of the S3 test server). */
  env: Record<string, string>;
  close(): Promise<void>;
}

export async function startScaleOutBacking(options: { redis?: boolean } = {}): Promise<ScaleOutBacking> {
  await dropAbandonedSchemas();
  const postgres = freshPostgresSchema();
  const redis = freshRedisPrefix();
  const s3 = await freshS3Bucket();
  return {
    settings: { database: postgres.url, storage: s3.url, ...(options.redis === false ? {} : { redis: redis.url }) },
    env: s3.env,
    async close() {
      await s3.drop();
      await postgres.drop();
      await redis.drop();
    },
  };
}

const backingsByDataDir = new Map<string, Promise<ScaleOutBacking>>();

/**
 * The scale-out backing of a data directory a test reuses across restarts: kept until the
 * test that made it finishes.
 */
async function backingOfDataDir(dataDir: string): Promise<ScaleOutBacking> {
  let backing = backingsByDataDir.get(dataDir);
  if (!backing) {
    const started = startScaleOutBacking();
    backing = started;
    backingsByDataDir.set(dataDir, started);
    // Imported here, not at the top: testkit is also used outside vitest (bench/).
    const { onTestFinished } = await import('vitest');
    onTestFinished(async () => {
      backingsByDataDir.delete(dataDir);
      await (await started).close();
    });
  }
  return backing;
}

/**
 * Starts the real registry in-process on 127.0.0.1, port 0, with a fresh data directory
 * (SQLite + filesystem) unless one is given. Rate limits are off unless a test sets them.
 */
export async function startRegistry(options: StartRegistryOptions = {}): Promise<TestRegistry> {
  const dataDir = options.dataDir ?? (await mkdtemp(path.join(tmpdir(), 'pkg-registry-test-')));
  const flags: Record<string, string> = {
    data: dataDir,
    host: '127.0.0.1',
    port: '0',
    // Logs go to memory (below) unless a developer asks to see them with PKG_TEST_LOG_LEVEL.
    logLevel: options.captureLogs || !process.env.PKG_TEST_LOG_LEVEL ? 'info' : process.env.PKG_TEST_LOG_LEVEL,
    rateLimitAnonymous: '0',
    rateLimitAuthenticated: '0',
    rateLimitPublish: '0',
    // Tests sign up with short throwaway passwords; the policy's own tests set it back.
    passwordMinLength: '1',
  };
  const scaleOut = (options.profile ?? testProfile()) === 'scale-out';
  // A test that passes the data directory of another registry (a restart, or a second process
  // on the same store) gets that registry's backing on scale-out.
  const ownsBacking = scaleOut && !options.dataDir;
  let backing: ScaleOutBacking | undefined;
  if (ownsBacking) {
    const started = startScaleOutBacking();
    backingsByDataDir.set(dataDir, started);
    backing = await started;
  } else if (scaleOut) backing = await backingOfDataDir(dataDir);
  Object.assign(flags, backing?.settings);
  for (const [key, value] of Object.entries(options.settings ?? {})) flags[key] = String(value);
  const config = loadConfig({ flags, env: {} });
  const storage = await createStorage(config, options.now ? { now: options.now } : {});
  const logLines: string[] = [];
  const tls = readTlsFiles(config);
  const built = await buildApp(serverDeps(config, storage, options.now), {
    ...(tls ? { tls } : {}),
    ...(options.captureLogs || !process.env.PKG_TEST_LOG_LEVEL
      ? { logStream: { write: (line: string) => void logLines.push(line) } }
      : {}),
  });
  await built.app.listen({ host: '127.0.0.1', port: 0 });
  const address = built.app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const ownsDir = options.dataDir === undefined;
  return {
    ...built,
    url: `${tls ? 'https' : 'http'}://127.0.0.1:${port}`,
    port,
    config,
    storage,
    dataDir,
    logLines,
    async close() {
      await built.app.close();
      await storage.close();
      if (ownsBacking) {
        backingsByDataDir.delete(dataDir);
        await backing?.close();
      }
      if (ownsDir) await rm(dataDir, { recursive: true, force: true });
      const leaked = leakedTokens(logLines.join(''));
      if (leaked.length > 0) throw new Error(`${leaked.length} issued token(s) appear in the registry's log`);
    },
  };
}
