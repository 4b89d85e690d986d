import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { UplinkConfig } from './uplink-config.js';
import type { RetentionSchedule } from './retention-rules.js';
import { SETTINGS, envName, type SettingSpec } from './settings.js';
import { valueText } from './value-text.js';
import { RELAUNCH_ENV } from '../node-options.js';

const ENV_PREFIX = 'PKG_REGISTRY_';
/** A variable that is not a setting: where the config file is (the other: RELAUNCH_ENV). */
export const CONFIG_ENV = 'PKG_REGISTRY_CONFIG';

/** The validated server configuration. */
export interface Config {
  host: string;
  port: number;
  data: string;
  publicUrl: string | undefined;
  cdnUrl: string | undefined;
  /** What clients call the registry; undefined: the host of its URL. */
  registryName: string | undefined;
  registryDomain: string | undefined;
  /** Resolved: `sqlite:<path>` or `postgres://…`. */
  database: string;
  /** Resolved: a directory or `s3://…`. */
  storage: string;
  redis: string | undefined;
  tlsCert: string | undefined;
  tlsKey: string | undefined;
  trustProxy: boolean | number | string[];
  signup: boolean;
  readAccess: 'anonymous' | 'token';
  requireTwoFactor: boolean;
  tokenTtl: number;
  maxTarballSize: number;
  maxBodySize: number;
  rateLimitAnonymous: number;
  rateLimitAuthenticated: number;
  rateLimitPublish: number;
  /** Most bytes of blobs a registry may hold; 0: no quota. */
  quotaBytes: number;
  /** Most packages a registry may hold; 0: no quota. */
  quotaPackages: number;
  /** Web pages per hour per client IP; their assets get WEB_ASSET_FACTOR times as many. */
  rateLimitWeb: number;
  loginFailureLimit: number;
  loginFailureLimitPerAddress: number;
  loginFailureWindow: number;
  passwordMinLength: number;
  /** Seconds an invitation stays usable. */
  invitationTtl: number;
  searchCache: number;
  /** Seconds between refreshes of the downloaded packages' search rows (counts and scores). */
  downloadScoreInterval: number;
  documentCache: number;
  tarballCache: number;
  tarballStreamThreshold: number;
  databaseCache: number;
  /** Empty: every package is local. */
  uplinks: UplinkConfig[];
  /** Unset: the server removes nothing by itself. */
  retention: RetentionSchedule | undefined;
  /** Days the audit log keeps an entry. */
  auditRetentionDays: number;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  shutdownTimeout: number;
}

/** A configuration problem: reported at start-up, exit code 2. */
export class ConfigError extends Error {
  override name = 'ConfigError';
  /** What the operator can do about it, printed on its own line after the error. */
  readonly hint: string | undefined;

  constructor(message: string, hint?: string) {
    super(message);
    this.hint = hint;
  }
}

export interface ConfigSources {
  /** Values from command-line flags, by setting key. */
  flags?: Record<string, string | undefined>;
  /** Path of a JSON config file. */
  configFile?: string | undefined;
  env?: NodeJS.ProcessEnv;
  /** Directory relative paths are resolved against. */
  cwd?: string;
}

/** Builds a Config from defaults < config file < environment < flags, validating every value. */
export function loadConfig(sources: ConfigSources = {}): Config {
  const env = sources.env ?? {};
  const cwd = sources.cwd ?? process.cwd();
  const raw: Record<string, unknown> = {};
  for (const spec of SETTINGS) raw[spec.key] = spec.default;

  const configFile = sources.configFile ?? env[CONFIG_ENV];
  if (configFile) {
    const fileValues = readConfigFile(path.resolve(cwd, configFile));
    for (const [key, value] of Object.entries(fileValues)) raw[key] = value;
  }
  const knownEnv = new Set<string>([CONFIG_ENV, RELAUNCH_ENV, ...SETTINGS.map((s: SettingSpec) => envName(s))]);
  for (const name of Object.keys(env)) {
    // A misspelt variable would otherwise be ignored without a word and leave a default in force.
    if (name.startsWith(ENV_PREFIX) && !knownEnv.has(name)) throw new ConfigError(`unknown environment variable ${name}`);
  }
  for (const spec of SETTINGS as readonly SettingSpec[]) {
    const value = env[envName(spec)];
    if (value !== undefined && value !== '') raw[spec.key] = value;
  }
  for (const [key, value] of Object.entries(sources.flags ?? {})) {
    if (value !== undefined) raw[key] = value;
  }

  const values: Record<string, unknown> = {};
  for (const spec of SETTINGS as readonly SettingSpec[]) {
    values[spec.key] = coerce(spec, raw[spec.key]);
  }
  const data = path.resolve(cwd, values.data as string);
  const config = {
    ...values,
    data,
    publicUrl: stripSlash(values.publicUrl as string | undefined),
    cdnUrl: stripSlash(values.cdnUrl as string | undefined),
    registryName: (values.registryName as string | undefined)?.trim() || undefined,
    registryDomain: (values.registryDomain as string | undefined)?.toLowerCase(),
    database: resolveDatabase(values.database as string | undefined, data, cwd),
    storage: resolveStorage(values.storage as string | undefined, data, cwd),
    trustProxy: parseTrustProxy(values.trustProxy as string),
    tlsCert: values.tlsCert ? path.resolve(cwd, values.tlsCert as string) : undefined,
    tlsKey: values.tlsKey ? path.resolve(cwd, values.tlsKey as string) : undefined,
    uplinks: (values.uplinks as UplinkConfig[] | undefined) ?? [],
  } as Config;
  if ((config.tlsCert === undefined) !== (config.tlsKey === undefined)) {
    throw new ConfigError('tlsCert and tlsKey must be given together');
  }
  return config;
}

function readConfigFile(file: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConfigError(`cannot read config file ${file}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new ConfigError(`config file ${file} is not valid JSON: ${(err as Error).message}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new ConfigError(`config file ${file} must hold a JSON object`);
  }
  const known = new Set<string>(SETTINGS.map((s) => s.key));
  for (const key of Object.keys(parsed)) {
    if (!known.has(key)) throw new ConfigError(`unknown setting '${key}' in config file ${file}`);
  }
  return parsed as Record<string, unknown>;
}

/** One setting's value from a string or JSON value, checked like a start-up setting (ConfigError). */
export function coerceSetting(key: string, value: unknown): unknown {
  const spec = (SETTINGS as readonly SettingSpec[]).find((s) => s.key === key);
  if (!spec) throw new ConfigError(`unknown setting '${key}'`);
  return coerce(spec, value);
}

function coerce(spec: SettingSpec, value: unknown): unknown {
  if (value === undefined || value === null) return undefined;
  const where = `setting '${spec.key}'`;
  switch (spec.type) {
    case 'integer': {
      const n = typeof value === 'number' ? value : /^-?\d+$/.test(valueText(value).trim()) ? Number(value) : NaN;
      if (!Number.isSafeInteger(n)) throw new ConfigError(`${where} must be an integer, got '${valueText(value)}'`);
      if (spec.min !== undefined && n < spec.min) throw new ConfigError(`${where} must be at least ${spec.min}`);
      if (spec.max !== undefined && n > spec.max) throw new ConfigError(`${where} must be at most ${spec.max}`);
      return n;
    }
    case 'boolean': {
      if (typeof value === 'boolean') return value;
      const s = valueText(value).trim().toLowerCase();
      if (['true', '1', 'yes', 'on'].includes(s)) return true;
      if (['false', '0', 'no', 'off'].includes(s)) return false;
      throw new ConfigError(`${where} must be true or false, got '${valueText(value)}'`);
    }
    case 'enum': {
      const s = valueText(value);
      if (!spec.values?.includes(s)) throw new ConfigError(`${where} must be one of ${spec.values?.join(', ')}, got '${s}'`);
      return s;
    }
    case 'url': {
      const s = valueText(value);
      let url: URL;
      try {
        url = new URL(s);
      } catch {
        throw new ConfigError(`${where} must be an absolute http(s) URL, got '${s}'`);
      }
      if (url.protocol !== 'http:' && url.protocol !== 'https:') {
        throw new ConfigError(`${where} must be an http(s) URL, got '${s}'`);
      }
      return s;
    }
    case 'json': {
      try {
        return spec.parse ? spec.parse(value) : value;
      } catch (err) {
        throw new ConfigError(`${where} ${(err as Error).message}`);
      }
    }
    default: {
      if (typeof value !== 'string' && typeof value !== 'number') throw new ConfigError(`${where} must be a string`);
      return String(value);
    }
  }
}

function stripSlash(url: string | undefined): string | undefined {
  return url?.replace(/\/+$/, '');
}

function resolveDatabase(value: string | undefined, data: string, cwd: string): string {
  if (value === undefined) return `sqlite:${path.join(data, 'registry.db')}`;
  if (value.startsWith('postgres://') || value.startsWith('postgresql://')) return value;
  if (value.startsWith('sqlite:')) return `sqlite:${path.resolve(cwd, value.slice('sqlite:'.length))}`;
  throw new ConfigError(`setting 'database' must be sqlite:<path> or a postgres:// URL, got '${value}'`);
}

function resolveStorage(value: string | undefined, data: string, cwd: string): string {
  if (value === undefined) return path.join(data, 'tarballs');
  if (value.startsWith('s3://')) return value;
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) {
    throw new ConfigError(`setting 'storage' must be a directory or an s3:// URL, got '${value}'`);
  }
  return path.resolve(cwd, value);
}

function parseTrustProxy(value: string): boolean | number | string[] {
  const s = value.trim().toLowerCase();
  if (s === 'false' || s === '') return false;
  if (s === 'true') return true;
  if (/^\d+$/.test(s)) return Number(s);
  return s
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean);
}
