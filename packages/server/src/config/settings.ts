/**
 * Every server setting, in one table: its key in the config file, its environment variable
 * (`PKG_REGISTRY_<NAME>`), its command-line flag, type, default and meaning.
 * docs/configuration.md is checked against this table by a test.
 */
import { parseUplinks } from './uplink-config.js';
import { parseRetentionSchedule } from './retention-rules.js';

export type SettingType = 'string' | 'integer' | 'boolean' | 'url' | 'path' | 'enum' | 'json';

export interface SettingSpec {
  key: string;
  type: SettingType;
  /** Default as the user would write it; `undefined` means unset. */
  default: string | number | boolean | undefined;
  description: string;
  values?: readonly string[];
  min?: number;
  max?: number;
  /** Command-line flag of `pkg-registry serve`, when there is one. */
  flag?: string;
  /** Environment variable, when it is not the derived `PKG_REGISTRY_<NAME>`. */
  env?: string;
  /** For `json` settings: checks the parsed value (or a string of JSON) and returns it; throws with the problem. */
  parse?: (value: unknown) => unknown;
}

const MiB = 1024 * 1024;

export const SETTINGS = [
  { key: 'host', type: 'string', default: '127.0.0.1', flag: '--host', description: 'Interface to listen on.' },
  {
    key: 'port',
    type: 'integer',
    default: 4873,
    min: 0,
    max: 65535,
    flag: '--port',
    description: 'TCP port; 0 picks a free one.',
  },
  {
    key: 'data',
    type: 'path',
    default: './data',
    flag: '--data',
    description: 'Data directory of the embedded default (SQLite database and tarballs).',
  },
  {
    key: 'publicUrl',
    type: 'url',
    default: undefined,
    flag: '--public-url',
    description:
      'Public URL of the global registry, used in every URL the server emits. Unset: derived from each request (Host, or X-Forwarded-* behind a trusted proxy).',
  },
  {
    key: 'registryName',
    type: 'string',
    default: undefined,
    flag: '--registry-name',
    description:
      "The registry's name as clients show it (`pkg` names the `scopedRegistries` entries it creates after it; `GET /-/pkg/registry` answers it). Unset: the host of the registry's URL, with its port.",
  },
  {
    key: 'cdnUrl',
    type: 'url',
    default: undefined,
    flag: '--cdn-url',
    description:
      "Base URL of tarball links (`dist.tarball`). Unset: the registry's own public URL, which always serves tarballs.",
  },
  {
    key: 'registryDomain',
    type: 'string',
    env: 'PKG_REGISTRY_DOMAIN',
    default: undefined,
    flag: '--registry-domain',
    description: 'Domain whose subdomains are tenant registries (`<tenant>.<domain>`). Unset: every host is the global registry.',
  },
  {
    key: 'database',
    type: 'string',
    default: undefined,
    flag: '--database',
    description: 'Metadata store: `sqlite:<path>` or a `postgres://` URL. Unset: `sqlite:<data>/registry.db`.',
  },
  {
    key: 'storage',
    type: 'string',
    default: undefined,
    flag: '--storage',
    description: 'Tarball store: a directory or `s3://<bucket>?endpoint=…&region=…`. Unset: `<data>/tarballs`.',
  },
  {
    key: 'redis',
    type: 'string',
    default: undefined,
    flag: '--redis',
    description: 'Optional `redis://` URL for shared rate-limit counters and cache invalidation.',
  },
  {
    key: 'tlsCert',
    type: 'path',
    default: undefined,
    flag: '--tls-cert',
    description: 'PEM certificate file; with tlsKey the server speaks HTTPS.',
  },
  { key: 'tlsKey', type: 'path', default: undefined, flag: '--tls-key', description: 'PEM private key file for tlsCert.' },
  {
    key: 'trustProxy',
    type: 'string',
    default: 'false',
    flag: '--trust-proxy',
    description:
      'Trust X-Forwarded-* from a TLS-terminating proxy: `false`, `true`, a hop count, or comma-separated addresses/CIDRs.',
  },
  {
    key: 'signup',
    type: 'boolean',
    default: true,
    flag: '--signup',
    description: 'Whether logging in as an unknown user creates the account (global registry; tenants have their own setting).',
  },
  {
    key: 'readAccess',
    type: 'enum',
    default: 'anonymous',
    values: ['anonymous', 'token'],
    flag: '--read-access',
    description: 'Whether reads need a token (global registry; tenants have their own setting).',
  },
  {
    key: 'requireTwoFactor',
    type: 'boolean',
    default: false,
    flag: '--require-two-factor',
    description:
      'Whether publishing needs an account with two-factor sign-in in use (global registry; tenants have their own setting).',
  },
  {
    key: 'tokenTtl',
    type: 'integer',
    default: 0,
    min: 0,
    flag: '--token-ttl',
    description: 'Token lifetime in seconds; 0 means tokens never expire.',
  },
  {
    key: 'maxTarballSize',
    type: 'integer',
    default: 1024 * MiB,
    min: 1024,
    flag: '--max-tarball-size',
    description:
      'Largest tarball accepted by publish, in bytes (the JSON body may be a third larger: base64). Publishes are streamed to storage, so memory does not grow with it.',
  },
  {
    key: 'maxBodySize',
    type: 'integer',
    default: 1 * MiB,
    min: 1024,
    flag: '--max-body-size',
    description: 'Largest request body of every other route, in bytes.',
  },
  {
    key: 'rateLimitAnonymous',
    type: 'integer',
    default: 100,
    min: 0,
    flag: '--rate-limit-anonymous',
    description: 'Requests per hour per client IP without a token; 0 disables the limit.',
  },
  {
    key: 'rateLimitAuthenticated',
    type: 'integer',
    default: 1000,
    min: 0,
    flag: '--rate-limit-authenticated',
    description: 'Requests per hour per user; 0 disables the limit.',
  },
  {
    key: 'rateLimitPublish',
    type: 'integer',
    default: 10,
    min: 0,
    flag: '--rate-limit-publish',
    description: 'Publishes per hour per user; 0 disables the limit.',
  },
  {
    key: 'quotaBytes',
    type: 'integer',
    default: 0,
    min: 0,
    flag: '--quota-bytes',
    description:
      'Most bytes of tarballs (and provenance bundles) a registry may hold: a publish past it is refused with `QUOTA_EXCEEDED`. Applies to the global registry and to each tenant without its own (`pkg-registry tenant set <name> --quota-bytes`). 0: no quota.',
  },
  {
    key: 'quotaPackages',
    type: 'integer',
    default: 0,
    min: 0,
    flag: '--quota-packages',
    description:
      'Most packages a registry may hold: publishing a new package past it is refused with `QUOTA_EXCEEDED` (new versions of existing packages are not). Applies as quotaBytes does. 0: no quota.',
  },
  {
    key: 'rateLimitWeb',
    type: 'integer',
    default: 20_000,
    min: 0,
    flag: '--rate-limit-web',
    description:
      'Web pages per hour per client IP, counted apart from the API limits; their assets (stylesheet, script, icon) get three times as many. 0 disables the limit.',
  },
  {
    key: 'loginFailureLimit',
    type: 'integer',
    default: 10,
    min: 0,
    flag: '--login-failure-limit',
    description:
      'Failed logins of one account from one client address within loginFailureWindow before further attempts of that account from there get 429; 0 disables.',
  },
  {
    key: 'loginFailureLimitPerAddress',
    type: 'integer',
    default: 100,
    min: 0,
    flag: '--login-failure-limit-per-address',
    description:
      'Failed logins from one client address, whatever the accounts, within loginFailureWindow before every login from there gets 429; 0 disables.',
  },
  {
    key: 'loginFailureWindow',
    type: 'integer',
    default: 900,
    min: 1,
    flag: '--login-failure-window',
    description: 'Seconds over which failed logins are counted (and for which a throttled account or IP waits).',
  },
  {
    key: 'passwordMinLength',
    type: 'integer',
    default: 8,
    min: 1,
    max: 128,
    flag: '--password-min-length',
    description:
      'Shortest password a new or changed password may have (sign-up, `npm adduser`, invitations, `user create`, `user reset-password`); NIST SP 800-63B asks for at least 8. The 10,000 most common passwords are refused whatever their length. Existing passwords keep working.',
  },
  {
    key: 'invitationTtl',
    type: 'integer',
    default: 7 * 24 * 3600,
    min: 60,
    flag: '--invitation-ttl',
    description:
      'Seconds an invitation link (`pkg-registry user invite`, `POST /-/pkg/v1/admin/invitations`) stays usable; it is good once.',
  },
  {
    key: 'searchCache',
    type: 'integer',
    default: 5_000,
    min: 0,
    flag: '--search-cache',
    description:
      'Search results kept in memory to answer repeated searches at once (each result of a cached page counts one); dropped whenever the index changes. 0 disables the cache.',
  },
  {
    key: 'downloadScoreInterval',
    type: 'integer',
    default: 60,
    min: 1,
    max: 86_400,
    flag: '--download-score-interval',
    description:
      "Seconds between refreshes of the download counts and scores that search results show, for the packages downloaded since. npm's download-counts API reads the counts themselves, current within a second. Each refresh writes every downloaded package's search row once, so a shorter interval costs a busy registry more writes.",
  },
  {
    key: 'documentCache',
    type: 'integer',
    default: 32 * MiB,
    min: 0,
    flag: '--document-cache',
    description:
      'Bytes of serialized package documents (and their gzip/brotli forms) kept in memory; the least recently used go first, and once it is full a new document comes in only if asked for more often lately than the one it would evict. 0 disables the cache.',
  },
  {
    key: 'tarballCache',
    type: 'integer',
    default: 8 * MiB,
    min: 0,
    flag: '--tarball-cache',
    description:
      'Bytes of recently downloaded tarballs (each at most `tarballStreamThreshold`) kept in memory, so that a tarball many clients fetch is sent without reading storage again; the least recently used go first. 0 disables the cache.',
  },
  {
    key: 'tarballStreamThreshold',
    type: 'integer',
    default: 1 * MiB,
    min: 0,
    flag: '--tarball-stream-threshold',
    description:
      'Tarballs larger than this many bytes are streamed from storage with backpressure (and answer `Range` requests), never read whole nor kept in the tarball cache; smaller ones are read in one piece and may be cached.',
  },
  {
    key: 'databaseCache',
    type: 'integer',
    default: 2 * MiB,
    min: 0,
    flag: '--database-cache',
    description:
      "Bytes of SQLite's page cache (the embedded database only). Hot documents are served from documentCache and the operating system caches the file, so a small page cache costs little; 0 leaves SQLite its minimum.",
  },
  {
    key: 'uplinks',
    type: 'json',
    default: undefined,
    parse: parseUplinks,
    flag: '--uplinks',
    description:
      'Upstream npm registries this one serves chosen packages from, cached: a JSON array of `{name, url, packages, maxAge, timeout, tokenEnv, search}` (see uplinks.md). Unset: every package is local.',
  },
  {
    key: 'retention',
    type: 'json',
    default: undefined,
    parse: parseRetentionSchedule,
    flag: '--retention',
    description:
      'Pre-release retention the server applies by itself: a JSON object `{keepPrereleases, prereleaseMaxAgeDays, everyHours}` (see operations.md). Unset: nothing is removed unless `pkg-registry storage retain` is run.',
  },
  {
    key: 'auditRetentionDays',
    type: 'integer',
    default: 365,
    min: 1,
    flag: '--audit-retention-days',
    description:
      'Days the audit log keeps each entry (and finished webhook deliveries); older ones are removed every hour (see security.md).',
  },
  {
    key: 'logLevel',
    type: 'enum',
    default: 'info',
    values: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'],
    flag: '--log-level',
    description: 'Log level of the JSON-lines log on stdout.',
  },
  {
    key: 'shutdownTimeout',
    type: 'integer',
    default: 10,
    min: 0,
    flag: '--shutdown-timeout',
    description: 'Seconds in-flight requests get to finish on SIGTERM before connections are closed.',
  },
] as const satisfies readonly SettingSpec[];

export type SettingKey = (typeof SETTINGS)[number]['key'];

/** `publicUrl` → `PKG_REGISTRY_PUBLIC_URL`. */
export function envName(spec: Pick<SettingSpec, 'key' | 'env'>): string {
  return spec.env ?? 'PKG_REGISTRY_' + spec.key.replace(/([A-Z])/g, '_$1').toUpperCase();
}
