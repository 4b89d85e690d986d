import { parseArgs } from 'node:util';
import { getHeapStatistics } from 'node:v8';
import { buildApp } from './app.js';
import { serverDeps } from './deps.js';
import { ConfigError, loadConfig, type Config } from './config/config.js';
import { SETTINGS } from './config/settings.js';
import { readTlsFiles } from './config/tls.js';
import { checkPortFree, checkStartupPaths, listenError } from './config/startup-checks.js';
import { CreatedPaths } from './config/created-paths.js';
import { trackInFlightRequests } from './http/in-flight-requests.js';
import { explainStorageFailure } from './storage/storage-failure.js';
import { RetentionService } from './services/retention.js';
import { RetentionScheduler } from './services/retention-schedule.js';
import { readableLog } from './plugins/readable-log.js';
import { collectOrphanBlobs, createStorage, type Storage } from './storage/create-storage.js';
import { signVersionsPublishedBefore } from './services/signature-backfill.js';
import { measureUnmeasuredVersions } from './services/usage-backfill.js';
import { DeferredLog } from './storage/deferred-log.js';
import { recordRetentionRemovals } from './services/retention-changes.js';

const SHARED_ORPHAN_GRACE_MS = 60 * 60 * 1000;

/** What `serve` writes to besides its log, and the signals that stop it (tests pass their own). */
export interface ServeIo {
  stderr: { write(text: string): void };
  /** Stdout when it is a terminal: the log is then written as readable text, not JSON lines. */
  terminal?: { write(text: string): unknown };
  env: NodeJS.ProcessEnv;
  onStopSignal(listener: (signal: string) => void): void;
}

export const processServeIo: ServeIo = {
  stderr: process.stderr,
  terminal: process.stdout.isTTY ? process.stdout : undefined,
  env: process.env,
  onStopSignal(listener) {
    // Every time, not once: a repeat while stopping (Ctrl+C reaches a relaunched server from the
    // terminal and from its parent, node-options.ts) changes nothing; shutdownTimeout bounds the stop.
    for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, () => listener(signal));
  },
};

/** Reads `serve`'s flags into setting values by key. */
export function parseServeFlags(argv: string[]): { flags: Record<string, string | undefined>; configFile?: string } {
  const options: Record<string, { type: 'string' }> = { config: { type: 'string' } };
  const keyOfFlag: Record<string, string> = {};
  for (const spec of SETTINGS) {
    const flag = spec.flag.replace(/^--/, '');
    options[flag] = { type: 'string' };
    keyOfFlag[flag] = spec.key;
  }
  const { values } = parseArgs({ args: argv, options, strict: true, allowPositionals: false });
  const flags: Record<string, string | undefined> = {};
  for (const [flag, value] of Object.entries(values)) {
    if (flag === 'config') continue;
    const key = keyOfFlag[flag];
    if (key) flags[key] = value;
  }
  return { flags, configFile: values.config };
}

/**
 * `pkg-registry serve`: loads and checks the configuration (exit 2 on any problem), opens
 * storage, listens, and on SIGTERM/SIGINT stops accepting connections, lets in-flight requests
 * finish (up to shutdownTimeout), then closes the database cleanly. Resolves to the exit code.
 */
export async function serve(argv: string[], io: ServeIo = processServeIo): Promise<number> {
  let config: Config;
  let tls: { cert: Buffer; key: Buffer } | undefined;
  let created: CreatedPaths;
  try {
    const { flags, configFile } = parseServeFlags(argv);
    config = loadConfig({ flags, configFile, env: io.env });
    tls = readTlsFiles(config);
    checkStartupPaths(config);
    await checkPortFree(config.host, config.port);
    created = CreatedPaths.watch(config);
  } catch (err) {
    if (isParseArgsError(err)) {
      io.stderr.write(`Error: ${(err as Error).message}\nRun 'pkg-registry help' for the options.\n`);
      return 2;
    }
    if (err instanceof ConfigError) return reportConfigError(io, err);
    throw err;
  }

  const storageLog = new DeferredLog();
  let storage: Storage;
  try {
    storage = await createStorage(config, { log: storageLog });
  } catch (err) {
    await created.remove();
    const explained = explainStorageFailure(err, config);
    if (explained instanceof ConfigError) return reportConfigError(io, explained);
    io.stderr.write(`Error: ${explained.message}\n${explained.hint ? `Hint: ${explained.hint}\n` : ''}`);
    return 1;
  }

  let built;
  try {
    const logStream = io.terminal ? readableLog(io.terminal, config) : undefined;
    built = await buildApp(serverDeps(config, storage), { ...(tls ? { tls } : {}), ...(logStream ? { logStream } : {}) });
  } catch (err) {
    await storage.close();
    await created.remove();
    io.stderr.write(`Error: cannot start the server: ${(err as Error).message}\n`);
    return 1;
  }
  const { app } = built;
  storageLog.attach(app.log);
  const inFlight = trackInFlightRequests(app.server);
  const startedAt = new Date();
  const sweep = new AbortController();
  let sweeping: Promise<void> = Promise.resolve();
  const retention = config.retention
    ? new RetentionScheduler(
        new RetentionService({ ...storage, now: () => new Date() }),
        storage.registry,
        config.retention,
        app.log,
        (removals) => recordRetentionRemovals(built.services.audit, removals, { via: 'server' }),
      )
    : undefined;

  let stopping: Promise<void> | undefined;
  const stop = (signal: string): Promise<void> => {
    stopping ??= (async () => {
      app.log.info({ signal }, 'shutting down: finishing in-flight requests');
      const timer = setTimeout(() => {
        // Each request cut off is named: its client saw a broken connection, and the operator
        // may want to raise shutdownTimeout or find what held it.
        for (const request of inFlight.list()) {
          app.log.warn({ method: request.method, url: request.url, ms: request.ms }, 'request cut off at the shutdown timeout');
        }
        app.log.warn({ shutdownTimeout: config.shutdownTimeout }, 'shutdown timeout reached: closing remaining connections');
        app.server.closeAllConnections();
      }, config.shutdownTimeout * 1000);
      timer.unref();
      const closing = app.close();
      // The listening socket closes once the pre-close hooks have run (http/http-app.ts).
      while (app.server.listening) await new Promise((resolve) => setImmediate(resolve));
      app.log.info('no longer accepting connections');
      await closing;
      clearTimeout(timer);
      sweep.abort();
      await sweeping;
      await retention?.stop();
      // After the last request: closing the last SQLite connection checkpoints the WAL.
      await storage.close();
      app.log.info('stopped');
    })();
    return stopping;
  };
  const stopped = new Promise<void>((resolve) => io.onStopSignal((signal) => void stop(signal).then(resolve)));

  try {
    const address = await app.listen({ host: config.host, port: config.port });
    app.log.info(
      { address, database: config.database.startsWith('sqlite:') ? 'sqlite' : 'postgres', node: nodeRuntime(io.env) },
      'pkg-registry listening',
    );
    // Orphan tarballs are collected in the background once serving: walking every tarball takes
    // a time in proportion to the registry (bench/README.md, "Stop 37: the start-up sweep"), and
    // an orphan is never served meanwhile (only versions in a document are). Alone, every
    // unreferenced tarball older than this start is a crash leftover (newer ones may be publishes
    // in flight); sharing storage with other nodes, a young one may be another node's
    // uncommitted publish.
    sweeping = collectOrphanBlobs(storage, storage.shared ? SHARED_ORPHAN_GRACE_MS : 0, startedAt, sweep.signal).then(
      async (collected) => {
        const { orphans, temporaryFiles, incompleteUploads } = collected;
        if (orphans > 0) app.log.info({ removed: orphans }, 'removed orphan tarballs left by an interrupted publish');
        if (temporaryFiles + incompleteUploads > 0)
          app.log.info({ temporaryFiles, incompleteUploads }, 'removed what interrupted uploads left');
        // A sweep cut short by the shutdown is not a result (`/-/metrics` shows the last one).
        if (!sweep.signal.aborted) await storage.usage.recordCollect({ at: new Date().toISOString(), ...collected });
      },
      (err: unknown) => {
        if (!sweep.signal.aborted) app.log.error({ err }, 'collecting orphan tarballs failed');
      },
    );
    retention?.start();
    // Versions published before the registry signed anything are signed once, in the background.
    sweeping = sweeping
      .then(() => signVersionsPublishedBefore({ ...storage, now: () => new Date() }, sweep.signal))
      .then(
        (signed) => {
          if (signed > 0) app.log.info({ signed }, 'signed versions published before registry signatures');
        },
        (err: unknown) => {
          if (!sweep.signal.aborted) app.log.error({ err }, 'signing versions published before registry signatures failed');
        },
      );
    // Versions published before sizes were recorded are measured once, for quotas and metrics.
    sweeping = sweeping
      .then(() => measureUnmeasuredVersions(storage, sweep.signal))
      .then(
        (measured) => {
          if (measured > 0) app.log.info({ measured }, 'measured versions published before storage usage was recorded');
        },
        (err: unknown) => {
          if (!sweep.signal.aborted) app.log.error({ err }, 'measuring versions published before storage usage failed');
        },
      );
  } catch (err) {
    // Another process took the port after the start-up check: leave nothing behind either.
    await app.close();
    await storage.close();
    await created.remove();
    return reportConfigError(io, listenError(err as NodeJS.ErrnoException, config.host, config.port));
  }
  await stopped;
  return 0;
}

/** A start-up failure an operator must act on: the reason, a hint, exit code 2. */
function reportConfigError(io: ServeIo, err: ConfigError): number {
  io.stderr.write(`Error: ${err.message}\n${err.hint ? `Hint: ${err.hint}\n` : ''}`);
  return 2;
}

function isParseArgsError(err: unknown): boolean {
  return typeof (err as { code?: unknown })?.code === 'string' && (err as { code: string }).code.startsWith('ERR_PARSE_ARGS');
}

/**
 * The options the process runs with (docs/operations.md, "Memory"), on the start-up line: an
 * operator sees whether the heap bounds and the thread pool of node-options.ts took.
 */
function nodeRuntime(env: NodeJS.ProcessEnv): { version: string; options: string[]; threadPool: number; heapLimitMiB: number } {
  return {
    version: process.version,
    options: process.execArgv.filter((option) => option.startsWith('--')),
    threadPool: Number(env.UV_THREADPOOL_SIZE) || 4,
    heapLimitMiB: Math.round(getHeapStatistics().heap_size_limit / 2 ** 20),
  };
}
