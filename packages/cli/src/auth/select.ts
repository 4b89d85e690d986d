import path from 'node:path';
import type { FileSystem, KeyringBinding } from '../deps.js';
import { ClientError } from '../errors/client-errors.js';
import { EncryptedFileTokenStore } from './encrypted-file.js';
import { EnvTokenOverride } from './env.js';
import { KeychainTokenStore } from './keychain.js';
import type { TokenStore } from './token-store.js';

export interface SelectTokenStoreOptions {
  /** The `tokenStore` setting: auto, keychain or file. */
  setting: string;
  env: Readonly<Record<string, string | undefined>>;
  platform: NodeJS.Platform;
  dataDir: string;
  fs: FileSystem;
  loadKeyring(): Promise<KeyringBinding>;
  sleep(ms: number): Promise<void>;
  now(): Date;
  /** Host key of the registry in effect: the only one PKG_TOKEN speaks for. */
  envTokenHost: string;
  /** Told why the keychain was not used, for --verbose. */
  debug?(message: string): void;
}

/**
 * The one place that decides where tokens live: the OS keychain when one answers (or when
 * the setting demands it), otherwise the encrypted file; PKG_TOKEN, when set, overrides reads for the registry in effect.
 */
export async function selectTokenStore(options: SelectTokenStoreOptions): Promise<TokenStore> {
  const base = await baseStore(options);
  const envToken = options.env.PKG_TOKEN?.trim();
  return envToken ? new EnvTokenOverride(envToken, options.envTokenHost, base) : base;
}

async function baseStore(options: SelectTokenStoreOptions): Promise<TokenStore> {
  const file = () =>
    new EncryptedFileTokenStore({
      fs: options.fs,
      dir: path.join(options.dataDir, 'credentials'),
      sleep: options.sleep,
      now: options.now,
    });
  if (options.setting === 'file') return file();

  let unavailable: string;
  try {
    const keychain = new KeychainTokenStore(await options.loadKeyring(), options.platform);
    if (await keychain.available()) return keychain;
    unavailable = 'no OS keychain answers';
  } catch (err) {
    unavailable = `keychain binding unavailable (${(err as Error).message})`;
  }

  if (options.setting === 'keychain') {
    throw new ClientError('NO_KEYCHAIN');
  }
  options.debug?.(`${unavailable}: using the encrypted token file`);
  return file();
}
