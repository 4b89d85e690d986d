import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { migrateCommand } from './admin/migrate-command.js';
import { buildApp } from './app.js';
import { ConfigError, loadConfig, type Config } from './config/config.js';
import { SETTINGS } from './config/settings.js';
import { DeferredLog } from './storage/deferred-log.js';
import { collectOrphanBlobs, createStorage } from './storage/create-storage.js';

const SHARED_ORPHAN_GRACE_MS = 60 * 60 * 1000;

const USAGE = `Usage: pkg-registry <command> [options]

Commands:
  serve          Start the registry server
  migrate        Copy a whole registry to another database/storage (migrate --help)
  help           Show this help

Options of serve (each also comes from the config file and PKG_REGISTRY_<NAME>):
  --config <file>            JSON config file (env PKG_REGISTRY_CONFIG)
${SETTINGS.map((s) => `  ${`${s.flag} <value>`.padEnd(27)}${s.description.split('.')[0]}`).join('\n')}
`;

/** Entry of the `pkg-registry` binary; returns the exit code (0 ok, 1 failure, 2 usage/config). */
export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'serve':
      return serve(rest);
    case 'migrate':
      return migrateCommand(rest, process);
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      process.stdout.write(USAGE);
      return command === undefined ? 2 : 0;
    default:
      process.stderr.write(`Error: unknown command '${command}'\n\n${USAGE}`);
      return 2;
  }
}

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

async function serve(argv: string[]): Promise<number> {
  let config: Config;
  try {
    const { flags, configFile } = parseServeFlags(argv);
    config = loadConfig({ flags, configFile, env: process.env });
  } catch (err) {
    if (err instanceof ConfigError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(`Error: ${(err as Error).message}\n`);
      return 2;
    }
    throw err;
  }

  const storageLog = new DeferredLog();
  let storage;
  try {
    storage = await createStorage(config, { log: storageLog });
  } catch (err) {
    process.stderr.write(`Error: ${(err as Error).message}\n`);
    return err instanceof ConfigError ? 2 : 1;
  }
  // Alone, every unreferenced tarball is a crash leftover; sharing storage with other nodes,
  // a young one may be another node's publish that has not committed yet.
  const removed = await collectOrphanBlobs(storage, storage.shared ? SHARED_ORPHAN_GRACE_MS : 0);

  const tls =
    config.tlsCert && config.tlsKey ? { cert: readFileSync(config.tlsCert), key: readFileSync(config.tlsKey) } : undefined;
  const { app } = await buildApp(
    {
      config,
      metadata: storage.metadata,
      blobs: storage.blobs,
      bus: storage.bus,
      redis: storage.redis,
      now: () => new Date(),
    },
    tls ? { tls } : {},
  );
  storageLog.attach(app.log);
  if (removed > 0) app.log.info({ removed }, 'removed orphan tarballs left by an interrupted publish');

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    app.log.info({ signal }, 'shutting down: finishing in-flight requests');
    const timer = setTimeout(() => {
      app.log.warn('shutdown timeout reached: closing remaining connections');
      app.server.closeAllConnections?.();
    }, config.shutdownTimeout * 1000);
    timer.unref();
    await app.close();
    await storage.close();
    clearTimeout(timer);
  };
  const closed = new Promise<void>((resolve) => {
    for (const signal of ['SIGTERM', 'SIGINT'] as const) {
      process.once(signal, () => void stop(signal).then(resolve));
    }
  });

  try {
    const address = await app.listen({ host: config.host, port: config.port });
    app.log.info({ address, database: config.database.startsWith('sqlite:') ? 'sqlite' : 'postgres' }, 'pkg-registry listening');
  } catch (err) {
    process.stderr.write(`Error: cannot listen on ${config.host}:${config.port}: ${(err as Error).message}\n`);
    await storage.close();
    return 1;
  }
  await closed;
  return 0;
}
