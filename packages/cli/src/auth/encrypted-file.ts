import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import path from 'node:path';
import type { FileSystem } from '../deps.js';
import { readTextIfExists, withFileLock, writeFileAtomic } from '../io/fs.js';
import { TokenStoreError, type TokenStore } from './token-store.js';

const KEY_BYTES = 32;
const IV_BYTES = 12;
const FORMAT_VERSION = 1;

interface SealedRecord {
  iv: string;
  tag: string;
  data: string;
}

interface TokenFile {
  version: number;
  records: Record<string, SealedRecord>;
}

export interface EncryptedFileOptions {
  fs: FileSystem;
  /** Directory holding `tokens.json`, `tokens.key` and the lock file (created 0700). */
  dir: string;
  sleep(ms: number): Promise<void>;
  now(): Date;
}

/**
 * Tokens in a file encrypted with AES-256-GCM, for machines without a keychain.
 * - The key is 256 random bits in its own file (`tokens.key`, mode 0600), never derived from
 *   anything guessable, so the token file alone reveals nothing.
 * - One record per registry host, each sealed with a fresh 96-bit IV on every write; the host
 *   is bound in as additional authenticated data, so a record moved to another host, a
 *   flipped byte or a different key all fail authentication instead of yielding a token.
 * - Writers take a lock file and replace the file atomically, so concurrent logins to
 *   different hosts all land and a crash never leaves half a file.
 */
export class EncryptedFileTokenStore implements TokenStore {
  readonly name = 'encrypted file';
  readonly overridden = false;
  readonly tokenFile: string;
  readonly keyFile: string;
  readonly #lockFile: string;
  readonly #options: EncryptedFileOptions;

  constructor(options: EncryptedFileOptions) {
    this.#options = options;
    this.tokenFile = path.join(options.dir, 'tokens.json');
    this.keyFile = path.join(options.dir, 'tokens.key');
    this.#lockFile = path.join(options.dir, 'tokens.lock');
  }

  async get(host: string): Promise<string | null> {
    const file = await this.#readTokenFile();
    const record = file.records[host];
    if (!record) return null;
    const key = await this.#readKey();
    if (!key) throw new TokenStoreError(`the key file ${this.keyFile} is missing, so stored tokens cannot be read`);
    return open(key, host, record);
  }

  async set(host: string, token: string): Promise<void> {
    await this.#locked(async () => {
      const key = (await this.#readKey()) ?? (await this.#createKey());
      const file = await this.#readTokenFile();
      file.records[host] = seal(key, host, token);
      await this.#writeTokenFile(file);
    });
  }

  async delete(host: string): Promise<boolean> {
    return this.#locked(async () => {
      const file = await this.#readTokenFile();
      if (!file.records[host]) return false;
      delete file.records[host];
      await this.#writeTokenFile(file);
      return true;
    });
  }

  #locked<T>(fn: () => Promise<T>): Promise<T> {
    const { fs, sleep, now } = this.#options;
    return withFileLock(fs, this.#lockFile, { sleep, now }, fn);
  }

  async #readTokenFile(): Promise<TokenFile> {
    const text = await readTextIfExists(this.#options.fs, this.tokenFile);
    if (text === null) return { version: FORMAT_VERSION, records: {} };
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new TokenStoreError(`${this.tokenFile} is damaged (not JSON); delete it and log in again`);
    }
    if (!isTokenFile(parsed))
      throw new TokenStoreError(`${this.tokenFile} is damaged (unexpected shape); delete it and log in again`);
    if (parsed.version !== FORMAT_VERSION)
      throw new TokenStoreError(`${this.tokenFile} has unknown format version ${parsed.version}`);
    return { version: FORMAT_VERSION, records: { ...parsed.records } };
  }

  async #writeTokenFile(file: TokenFile): Promise<void> {
    await writeFileAtomic(this.#options.fs, this.tokenFile, `${JSON.stringify(file, null, 2)}\n`, {
      mode: 0o600,
      dirMode: 0o700,
    });
  }

  async #readKey(): Promise<Buffer | null> {
    let key: Buffer;
    try {
      key = await this.#options.fs.readFile(this.keyFile);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
    if (key.length !== KEY_BYTES) throw new TokenStoreError(`the key file ${this.keyFile} is damaged (wrong length)`);
    return key;
  }

  // Called only under the lock, so two writers never create two different keys.
  async #createKey(): Promise<Buffer> {
    const key = randomBytes(KEY_BYTES);
    await writeFileAtomic(this.#options.fs, this.keyFile, key, { mode: 0o600, dirMode: 0o700 });
    return key;
  }
}

function aad(host: string): Buffer {
  return Buffer.from(`pkg-token:v${FORMAT_VERSION}:${host}`, 'utf8');
}

function seal(key: Buffer, host: string, token: string): SealedRecord {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(aad(host));
  const data = Buffer.concat([cipher.update(token, 'utf8'), cipher.final()]);
  return { iv: iv.toString('base64'), tag: cipher.getAuthTag().toString('base64'), data: data.toString('base64') };
}

function open(key: Buffer, host: string, record: SealedRecord): string {
  try {
    const iv = Buffer.from(record.iv, 'base64');
    const tag = Buffer.from(record.tag, 'base64');
    if (iv.length !== IV_BYTES || tag.length !== 16) throw new Error('bad IV or tag length');
    const decipher = createDecipheriv('aes-256-gcm', key, iv);
    decipher.setAAD(aad(host));
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(Buffer.from(record.data, 'base64')), decipher.final()]).toString('utf8');
  } catch (err) {
    throw new TokenStoreError(
      `the stored token for ${host} failed authentication: the token file was modified or the key does not match`,
      { cause: err },
    );
  }
}

function isTokenFile(value: unknown): value is TokenFile {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  if (typeof v.version !== 'number' || typeof v.records !== 'object' || v.records === null) return false;
  return Object.values(v.records).every(
    (r) =>
      typeof r === 'object' &&
      r !== null &&
      typeof (r as SealedRecord).iv === 'string' &&
      typeof (r as SealedRecord).tag === 'string' &&
      typeof (r as SealedRecord).data === 'string',
  );
}
