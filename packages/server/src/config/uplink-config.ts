import { enclosingPrefixes, parsePackageRule } from './package-rules.js';

/**
 * The `uplinks` setting: which package names this registry serves from which upstream npm
 * registry. Parsed and checked once (start-up, `tenant set`), then compiled into rules that a
 * request asks with one or two map lookups.
 */

/** One uplink as written in the configuration. */
export interface UplinkConfig {
  /** Names it in metrics, health, logs and error details: `[a-z0-9][a-z0-9_-]*`. */
  name: string;
  /** Base URL of the upstream registry (http or https), without a trailing slash. */
  url: string;
  /** Exact package names and namespaces written `<prefix>.*`. */
  packages: string[];
  /** Seconds a fetched document is served before it is revalidated (default 300). */
  maxAge: number;
  /** Seconds an upstream request may take, from connecting to the last byte of the headers (default 30). */
  timeout: number;
  /** Environment variable holding the token sent upstream as `Authorization: Bearer`. */
  tokenEnv?: string;
  /** Also ask the upstream's search and add its results after the local ones. */
  search: boolean;
}

/** A problem in the `uplinks` value; the caller words it as its own error (ConfigError, usage). */
export class UplinkConfigError extends Error {
  override name = 'UplinkConfigError';
}

const UPLINK_FIELDS = new Set(['name', 'url', 'packages', 'maxAge', 'timeout', 'tokenEnv', 'search']);
const NAME = /^[a-z0-9][a-z0-9_-]{0,62}$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The uplinks of a JSON value (or a string of JSON, as the environment holds it). */
export function parseUplinks(value: unknown): UplinkConfig[] {
  let parsed = value;
  if (typeof value === 'string') {
    try {
      parsed = JSON.parse(value);
    } catch (err) {
      throw new UplinkConfigError(`must be JSON: ${(err as Error).message}`);
    }
  }
  if (!Array.isArray(parsed)) throw new UplinkConfigError('must be a JSON array of uplinks');
  const uplinks = parsed.map((entry, index) => parseUplink(entry, index));
  const names = new Set<string>();
  const owners = new Map<string, string>();
  for (const uplink of uplinks) {
    if (names.has(uplink.name)) throw new UplinkConfigError(`uplink name '${uplink.name}' is used twice`);
    names.add(uplink.name);
    for (const rule of uplink.packages) {
      const other = owners.get(rule);
      // One name, one source: two uplinks claiming the same rule would merge nothing but confuse everyone.
      if (other !== undefined) throw new UplinkConfigError(`'${rule}' is claimed by uplinks '${other}' and '${uplink.name}'`);
      owners.set(rule, uplink.name);
    }
  }
  return uplinks;
}

function parseUplink(entry: unknown, index: number): UplinkConfig {
  const where = `uplink ${index + 1}`;
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry))
    throw new UplinkConfigError(`${where} must be an object`);
  const raw = entry as Record<string, unknown>;
  for (const key of Object.keys(raw)) {
    if (!UPLINK_FIELDS.has(key)) throw new UplinkConfigError(`${where} has an unknown field '${key}'`);
  }
  if (typeof raw.name !== 'string' || !NAME.test(raw.name)) {
    throw new UplinkConfigError(`${where}: 'name' must be lowercase letters, digits, '-' or '_'`);
  }
  const named = `uplink '${raw.name}'`;
  const url = parseUrl(raw.url, named);
  if (!Array.isArray(raw.packages) || raw.packages.length === 0) {
    throw new UplinkConfigError(`${named}: 'packages' must be a non-empty array of names or '<prefix>.*' namespaces`);
  }
  const packages = (raw.packages as unknown[]).map((rule) => {
    if (parsePackageRule(rule) === undefined) {
      throw new UplinkConfigError(`${named}: '${String(rule)}' is neither a package name nor a '<prefix>.*' namespace`);
    }
    return rule as string;
  });
  const maxAge = seconds(raw.maxAge, 300, `${named}: 'maxAge'`, 0);
  const timeout = seconds(raw.timeout, 30, `${named}: 'timeout'`, 0.1);
  if (raw.tokenEnv !== undefined && (typeof raw.tokenEnv !== 'string' || !ENV_NAME.test(raw.tokenEnv))) {
    throw new UplinkConfigError(`${named}: 'tokenEnv' must be the name of an environment variable`);
  }
  if (raw.search !== undefined && typeof raw.search !== 'boolean')
    throw new UplinkConfigError(`${named}: 'search' must be true or false`);
  return {
    name: raw.name,
    url,
    packages,
    maxAge,
    timeout,
    ...(raw.tokenEnv !== undefined ? { tokenEnv: raw.tokenEnv } : {}),
    search: raw.search === true,
  };
}

function parseUrl(value: unknown, named: string): string {
  let url: URL;
  try {
    url = new URL(String(value));
  } catch {
    throw new UplinkConfigError(`${named}: 'url' must be an absolute http(s) URL`);
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || typeof value !== 'string') {
    throw new UplinkConfigError(`${named}: 'url' must be an absolute http(s) URL`);
  }
  if (url.username || url.password || url.search || url.hash) {
    throw new UplinkConfigError(`${named}: 'url' must have no credentials, query or fragment (use tokenEnv for a token)`);
  }
  return value.replace(/\/+$/, '');
}

function seconds(value: unknown, fallback: number, what: string, min: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > 86_400 * 365) {
    throw new UplinkConfigError(`${what} must be a number of seconds of at least ${min}`);
  }
  return value;
}

/** An uplink ready for requests: its URL split up, times in milliseconds, its token read. */
export interface Uplink {
  readonly name: string;
  /** Base URL without a trailing slash. */
  readonly url: string;
  /** Tarballs are fetched only from this origin (scheme, host and port). */
  readonly origin: string;
  readonly maxAgeMs: number;
  readonly timeoutMs: number;
  /** `Bearer <token>` when tokenEnv names a set variable. */
  readonly authorization: string | undefined;
  readonly search: boolean;
}

/** A name no rule covers, as remembered by UplinkRules.match. */
const LOCAL = Symbol('local');
/** Names whose answer UplinkRules.match keeps. */
const MAX_MATCHED = 50_000;

/**
 * Which uplink serves a package name: an exact name first, then the longest namespace that
 * contains it (`com.example.*` holds `com.example.tool` and `com.example.tool.extra`, not
 * `com.example`). A name no rule covers is local.
 */
export class UplinkRules {
  readonly uplinks: readonly Uplink[];
  /** The uplinks that opted into live search. */
  readonly searching: readonly Uplink[];
  readonly #exact = new Map<string, Uplink>();
  readonly #namespaces = new Map<string, Uplink>();
  readonly #matched = new Map<string, Uplink | typeof LOCAL>();

  constructor(configs: readonly UplinkConfig[], env: NodeJS.ProcessEnv) {
    this.uplinks = configs.map((config) => {
      const token = config.tokenEnv ? env[config.tokenEnv] : undefined;
      const uplink: Uplink = {
        name: config.name,
        url: config.url,
        origin: new URL(config.url).origin,
        maxAgeMs: config.maxAge * 1000,
        timeoutMs: config.timeout * 1000,
        authorization: token ? `Bearer ${token}` : undefined,
        search: config.search,
      };
      for (const rule of config.packages) {
        if (rule.endsWith('.*')) this.#namespaces.set(rule.slice(0, -2), uplink);
        else this.#exact.set(rule, uplink);
      }
      return uplink;
    });
    this.searching = this.uplinks.filter((uplink) => uplink.search);
  }

  /**
   * The uplink that serves `name`, or undefined when the name is local. Asked on every document
   * and tarball request (local ones too): the answer is remembered, so that a name costs one
   * lookup instead of one per namespace segment and the strings cut to find them.
   */
  match(name: string): Uplink | undefined {
    const known = this.#matched.get(name);
    if (known !== undefined) return known === LOCAL ? undefined : known;
    const found = this.#find(name);
    // Bounded: requests for ever new names (a crawler) must not grow it without end.
    if (this.#matched.size >= MAX_MATCHED) this.#matched.clear();
    this.#matched.set(name, found ?? LOCAL);
    return found;
  }

  #find(name: string): Uplink | undefined {
    const exact = this.#exact.get(name);
    if (exact !== undefined || this.#namespaces.size === 0) return exact;
    for (const prefix of enclosingPrefixes(name)) {
      const found = this.#namespaces.get(prefix);
      if (found !== undefined) return found;
    }
    return undefined;
  }
}

/** Rules of a configuration; undefined when there are no uplinks (then nothing is looked up). */
export function compileUplinks(configs: readonly UplinkConfig[] | undefined, env: NodeJS.ProcessEnv): UplinkRules | undefined {
  return configs === undefined || configs.length === 0 ? undefined : new UplinkRules(configs, env);
}
