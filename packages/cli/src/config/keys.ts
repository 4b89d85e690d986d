import { ClientError } from '../errors/client-errors.js';
import { parseRegistryUrl } from '../http/registry-url.js';

export type ConfigValue = string | number;

/** One setting of the client's config file. docs/cli.md lists them; a test checks it. */
export interface ConfigKey {
  key: string;
  description: string;
  default: ConfigValue;
  /** Validates and normalizes a value given on the command line or read from the file. */
  parse(value: string): ConfigValue;
}

export const DEFAULT_REGISTRY = 'http://127.0.0.1:4873';

export const CONFIG_KEYS: readonly ConfigKey[] = [
  {
    key: 'registry',
    description: 'Registry used when a command gets no --registry (environment: PKG_REGISTRY).',
    default: DEFAULT_REGISTRY,
    parse: (value) => parseRegistryUrl(value),
  },
  {
    key: 'tokenStore',
    description: 'Where tokens are kept: auto (keychain when one answers, else file), keychain, or file.',
    default: 'auto',
    parse: (value) => oneOf(value, 'tokenStore', ['auto', 'keychain', 'file']),
  },
  {
    key: 'timeout',
    description: 'Seconds to wait for the registry to connect, answer, or send more data.',
    default: 30,
    parse: (value) => integerIn(value, 'timeout', 1, 600),
  },
  {
    key: 'engineVersion',
    description:
      'Engine version for projects that do not state one (an Unreal project of a source-built engine, e.g. 5.3); --engine-version overrides it. Empty: none.',
    default: '',
    parse: (value) => engineVersionValue(value),
  },
  {
    key: 'backupsKept',
    description:
      "Backups kept in the temp folder for each project (the newest); the project's older ones are removed. 0 keeps every one.",
    default: 10,
    parse: (value) => integerIn(value, 'backupsKept', 0, 10000),
  },
  {
    key: 'checkoutCommand',
    description:
      'Command run on read-only project files before pkg changes them (version control checkout), `{files}` standing for them, e.g. "p4 edit {files}". Empty: read-only files stop the command.',
    default: '',
    parse: (value) => value.trim(),
  },
];

export function configKey(key: string): ConfigKey {
  const spec = CONFIG_KEYS.find((k) => k.key === key);
  if (!spec) {
    throw new ClientError('CONFIG_UNKNOWN_KEY', { key, keys: CONFIG_KEYS.map((k) => k.key).join(', ') });
  }
  return spec;
}

function engineVersionValue(value: string): string {
  const trimmed = value.trim();
  // The engine checks the version against its own form when a project is opened.
  if (trimmed !== '' && !/^(0|[1-9]\d*)\.(0|[1-9]\d*)(\.[0-9A-Za-z]+)?$/.test(trimmed)) {
    throw new ClientError('CONFIG_ENGINE_VERSION', { value });
  }
  return trimmed;
}

function oneOf(value: string, key: string, allowed: string[]): string {
  if (!allowed.includes(value)) {
    throw new ClientError('CONFIG_INVALID_VALUE', { key, value, expected: allowed.join(', ') });
  }
  return value;
}

function integerIn(value: string, key: string, min: number, max: number): number {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || n < min || n > max) {
    throw new ClientError('CONFIG_INVALID_VALUE', { key, value, expected: `an integer from ${min} to ${max}` });
  }
  return n;
}
