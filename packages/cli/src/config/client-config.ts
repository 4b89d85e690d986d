import { jsonSyntaxProblem } from '../json/json-syntax.js';
import path from 'node:path';
import type { FileSystem } from '../deps.js';
import { ClientError } from '../errors/client-errors.js';
import { readTextIfExists, writeFileAtomic } from '../io/fs.js';
import { CONFIG_KEYS, configKey, type ConfigValue } from './keys.js';

/** The per-user config file (`<configDir>/config.json`): a flat JSON object of known keys. */
export class ClientConfig {
  readonly file: string;
  readonly #fs: FileSystem;
  #values: Record<string, ConfigValue>;

  private constructor(fs: FileSystem, file: string, values: Record<string, ConfigValue>) {
    this.#fs = fs;
    this.file = file;
    this.#values = values;
  }

  static async load(fs: FileSystem, configDir: string): Promise<ClientConfig> {
    const file = path.join(configDir, 'config.json');
    let text: string | null;
    try {
      text = await readTextIfExists(fs, file);
    } catch (err) {
      throw new ClientError('CONFIG_UNREADABLE', { file, reason: (err as Error).message }, { cause: err });
    }
    const values: Record<string, ConfigValue> = {};
    if (text !== null && text.trim() !== '') {
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        throw new ClientError('CONFIG_NOT_JSON', { file, problem: jsonSyntaxProblem(text) ?? 'unreadable' });
      }
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
        throw new ClientError('CONFIG_NOT_OBJECT', { file });
      }
      for (const [key, value] of Object.entries(parsed)) {
        // Unknown keys (from a newer client) are kept untouched.
        if (typeof value === 'string' || typeof value === 'number') values[key] = value;
      }
    }
    return new ClientConfig(fs, file, values);
  }

  /** The value in effect: the file's value (validated) or the default. */
  get(key: string): ConfigValue {
    const spec = configKey(key);
    const raw = this.#values[key];
    if (raw === undefined) return spec.default;
    try {
      return spec.parse(String(raw));
    } catch (err) {
      if (err instanceof ClientError) {
        throw new ClientError('CONFIG_FILE_INVALID_VALUE', { file: this.file, problem: err.message, key });
      }
      throw err;
    }
  }

  /** Whether the file sets `key` (rather than the default applying). */
  isSet(key: string): boolean {
    configKey(key);
    return this.#values[key] !== undefined;
  }

  /** Every known key with its value in effect and where that value comes from. */
  list(): { key: string; value: ConfigValue; source: 'file' | 'default' }[] {
    return CONFIG_KEYS.map((spec) => ({
      key: spec.key,
      value: this.get(spec.key),
      source: this.#values[spec.key] === undefined ? 'default' : 'file',
    }));
  }

  async set(key: string, value: string): Promise<ConfigValue> {
    const parsed = configKey(key).parse(value);
    this.#values = { ...this.#values, [key]: parsed };
    await this.#save();
    return parsed;
  }

  /** Removes `key` from the file; true when it was there. */
  async delete(key: string): Promise<boolean> {
    configKey(key);
    if (this.#values[key] === undefined) return false;
    const { [key]: _removed, ...rest } = this.#values;
    this.#values = rest;
    await this.#save();
    return true;
  }

  async #save(): Promise<void> {
    try {
      await writeFileAtomic(this.#fs, this.file, `${JSON.stringify(this.#values, null, 2)}\n`, { mode: 0o600, dirMode: 0o700 });
    } catch (err) {
      throw new ClientError('CONFIG_WRITE_FAILED', { file: this.file, reason: (err as Error).message }, { cause: err });
    }
  }
}
