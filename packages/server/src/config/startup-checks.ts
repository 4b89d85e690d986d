import { accessSync, constants, statSync, type Stats } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { ConfigError, type Config } from './config.js';

/**
 * Checks, before anything is created, that the directories and files the embedded default
 * writes can be written: a data directory that is a file, an unwritable directory or a
 * read-only database stops start-up here with the setting and the path named (exit 2), instead
 * of a driver's `EEXIST: mkdir` or `unable to open database file` after half the tree exists.
 */
export function checkStartupPaths(config: Pick<Config, 'data' | 'database' | 'storage'>): void {
  if (config.database.startsWith('sqlite:')) {
    const file = config.database.slice('sqlite:'.length);
    const setting = file === path.join(config.data, 'registry.db') ? 'data' : 'database';
    checkDirectory(path.dirname(file), setting);
    const stats = statOrUndefined(file);
    if (stats?.isDirectory()) {
      throw new ConfigError(
        `setting '${setting}': the database ${file} is a directory`,
        'point --database at a file (sqlite:<file>)',
      );
    }
    if (stats && !accessible(file, constants.R_OK | constants.W_OK)) {
      throw new ConfigError(
        `setting '${setting}': the database ${file} is read-only for this user`,
        `give the user running pkg-registry read and write access to ${file} (and to its directory, for the WAL files)`,
      );
    }
  }
  if (!/^s3:\/\//.test(config.storage)) {
    const setting = config.storage === path.join(config.data, 'tarballs') ? 'data' : 'storage';
    checkDirectory(config.storage, setting);
  }
}

/**
 * A directory that exists must be a writable directory; one that does not will be created, so
 * its nearest existing ancestor must be a writable directory.
 */
function checkDirectory(dir: string, setting: string): void {
  let existing = dir;
  let stats = statOrUndefined(existing);
  while (stats === undefined && path.dirname(existing) !== existing) {
    existing = path.dirname(existing);
    stats = statOrUndefined(existing);
  }
  if (stats === undefined) return;
  if (!stats.isDirectory()) {
    throw new ConfigError(
      `setting '${setting}': ${existing} is not a directory`,
      `give --${setting} a directory (it is created when missing), or remove the file ${existing}`,
    );
  }
  if (!accessible(existing, constants.W_OK | constants.X_OK)) {
    throw new ConfigError(
      existing === dir
        ? `setting '${setting}': the directory ${dir} is not writable by this user`
        : `setting '${setting}': cannot create ${dir}: ${existing} is not writable by this user`,
      `give the user running pkg-registry write access to ${existing}, or choose another --${setting}`,
    );
  }
}

function statOrUndefined(file: string): Stats | undefined {
  try {
    return statSync(file);
  } catch {
    return undefined;
  }
}

function accessible(file: string, mode: number): boolean {
  try {
    accessSync(file, mode);
    return true;
  } catch {
    return false;
  }
}

/**
 * Binds the address for a moment, before any storage is opened, so a port in use stops start-up
 * having created nothing. (The real listen can still lose a race for the port; serve then
 * removes what it created.)
 */
export async function checkPortFree(host: string, port: number): Promise<void> {
  if (port === 0) return;
  await new Promise<void>((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', (err: NodeJS.ErrnoException) => reject(listenError(err, host, port)));
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve()));
  });
}

/** A failed listen in operator words (exit 2: restarting does not free the port). */
export function listenError(err: NodeJS.ErrnoException, host: string, port: number): ConfigError {
  switch (err.code) {
    case 'EADDRINUSE':
      return new ConfigError(
        `setting 'port': ${host}:${port} is already in use`,
        `stop the other process listening there (e.g. 'ss -ltnp | grep :${port}') or choose another --port`,
      );
    case 'EACCES':
      return new ConfigError(
        `setting 'port': this user may not listen on ${host}:${port}`,
        'ports below 1024 need privileges: use a higher --port behind a proxy, or grant CAP_NET_BIND_SERVICE',
      );
    case 'EADDRNOTAVAIL':
    case 'ENOTFOUND':
      return new ConfigError(
        `setting 'host': ${host} is not an address of this machine`,
        'give --host an address of this machine, or 0.0.0.0',
      );
    default:
      return new ConfigError(`cannot listen on ${host}:${port}: ${err.code ?? err.message}`);
  }
}
