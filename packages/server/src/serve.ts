import { parseArgs } from 'node:util';
import { buildApp } from './app.js';
import { serverDeps } from './deps.js';
import { ConfigError, loadConfig, type Config } from './config/config.js';
import { SETTINGS } from './config/settings.js';
import { readTlsFiles } from './config/tls.js';
import { collectOrphanBlobs, createStorage, type Storage } from './storage/create-storage.js';

/** What `serve` writes to besides its log, and the signals that stop it (tests pass their own). */
export interface ServeIo {
  stderr: { write(text: string): void };
  env: NodeJS.ProcessEnv;
  onStopSignal(listener: (signal: string) => void): void;
}

export const processServeIo: ServeIo = {
  stderr: process.stderr,
  env: process.env,
  onStopSignal(listener) {
    for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, () => listener(signal));
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
    if (key) flags[key] = value as string;
  }
  return { flags, configFile: values.config as string | undefined };
}

/**
 * `pkg-registry serve`: loads and checks the configuration (exit 2 on any problem), opens
 * storage, listens, and on SIGTERM/SIGINT stops accepting connections, lets in-flight requests
 * finish (up to shutdownTimeout), then closes the database cleanly. Resolves to the exit code.
 */
export async function serve(argv: string[], io: ServeIo = processServeIo): Promise<number> {
  let config: Config;
  let tls: { cert: Buffer; key: Buffer } | undefined;
  try {
    const { flags, configFile } = parseServeFlags(argv);
    config = loadConfig({ flags, configFile, env: io.env });
    tls = readTlsFiles(config);
  } catch (err) {
    if (isParseArgsError(err)) {
      io.stderr.write(`Error: ${(err as Error).message}\nRun 'pkg-registry help' for the options.\n`);
      return 2;
    }
    if (err instanceof ConfigError) {
      io.stderr.write(`Error: ${err.message}\n`);
      return 2;
    }
    throw err;
  }

  let storage: Storage;
  try {
    storage = await createStorage(config);
  } catch (err) {
    io.stderr.write(`Error: ${(err as Error).message}\n`);
    return err instanceof ConfigError ? 2 : 1;
  }

  let built;
  try {
    built = await buildApp(serverDeps(config, storage), tls ? { tls } : {});
  } catch (err) {
    // A certificate and key that do not belong together, or a key that does not parse.
    await storage.close();
    io.stderr.write(`Error: cannot start the server: ${(err as Error).message}\n`);
    return tls ? 2 : 1;
  }
  const { app } = built;
  const removed = await collectOrphanBlobs(storage, 0);
  if (removed > 0) app.log.info({ removed }, 'removed orphan tarballs left by an interrupted publish');

  let stopping: Promise<void> | undefined;
  const stop = (signal: string): Promise<void> => {
    stopping ??= (async () => {
      app.log.info({ signal }, 'shutting down: finishing in-flight requests');
      const timer = setTimeout(() => {
        app.log.warn('shutdown timeout reached: closing remaining connections');
        app.server.closeAllConnections();
      }, config.shutdownTimeout * 1000);
      timer.unref();
      const closing = app.close();
      // fastify closes the listening socket once its preClose hooks have run.
      while (app.server.listening) await new Promise((resolve) => setImmediate(resolve));
      app.log.info('no longer accepting connections');
      await closing;
      clearTimeout(timer);
      // After the last request: closing the last SQLite connection checkpoints the WAL.
      await storage.close();
      app.log.info('stopped');
    })();
    return stopping;
  };
  const stopped = new Promise<void>((resolve) => io.onStopSignal((signal) => void stop(signal).then(resolve)));

  try {
    const address = await app.listen({ host: config.host, port: config.port });
    app.log.info({ address, database: config.database.startsWith('sqlite:') ? 'sqlite' : 'postgres' }, 'pkg-registry listening');
  } catch (err) {
    io.stderr.write(`Error: cannot listen on ${config.host}:${config.port}: ${(err as Error).message}\n`);
    await app.close();
    await storage.close();
    return 1;
  }
  await stopped;
  return 0;
}

function isParseArgsError(err: unknown): boolean {
  return typeof (err as { code?: unknown })?.code === 'string' && (err as { code: string }).code.startsWith('ERR_PARSE_ARGS');
}
