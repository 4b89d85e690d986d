import path from 'node:path';

/** Where the client keeps its files, per user. */
export interface ClientPaths {
  /** Settings (`config.json`). */
  configDir: string;
  /** Data that must survive: the encrypted token file and its key, global packages. */
  dataDir: string;
  /** Data that may be deleted at any time: downloaded tarballs. */
  cacheDir: string;
}

const APP = 'pkg';

/**
 * The platform's usual places: XDG base directories on Linux and other Unixes, Application
 * Support and Caches on macOS, %APPDATA% and %LOCALAPPDATA% on Windows.
 * `PKG_CONFIG_DIR`, `PKG_DATA_DIR` and `PKG_CACHE_DIR` override each one.
 */
export function clientPaths(
  env: Readonly<Record<string, string | undefined>>,
  platform: NodeJS.Platform,
  homedir: string,
): ClientPaths {
  const join = platform === 'win32' ? path.win32.join : path.posix.join;
  let configDir: string;
  let dataDir: string;
  let cacheDir: string;
  if (platform === 'win32') {
    const roaming = env.APPDATA || join(homedir, 'AppData', 'Roaming');
    const local = env.LOCALAPPDATA || join(homedir, 'AppData', 'Local');
    configDir = join(roaming, APP);
    dataDir = join(local, APP, 'Data');
    cacheDir = join(local, APP, 'Cache');
  } else if (platform === 'darwin') {
    const support = join(homedir, 'Library', 'Application Support', APP);
    configDir = support;
    dataDir = support;
    cacheDir = join(homedir, 'Library', 'Caches', APP);
  } else {
    configDir = join(absoluteOr(env.XDG_CONFIG_HOME, join(homedir, '.config')), APP);
    dataDir = join(absoluteOr(env.XDG_DATA_HOME, join(homedir, '.local', 'share')), APP);
    cacheDir = join(absoluteOr(env.XDG_CACHE_HOME, join(homedir, '.cache')), APP);
  }
  return {
    configDir: env.PKG_CONFIG_DIR || configDir,
    dataDir: env.PKG_DATA_DIR || dataDir,
    cacheDir: env.PKG_CACHE_DIR || cacheDir,
  };
}

// The XDG spec says relative values are invalid and must be ignored.
function absoluteOr(value: string | undefined, fallback: string): string {
  return value && path.posix.isAbsolute(value) ? value : fallback;
}
