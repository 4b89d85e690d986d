import { RenderingBus } from './rendering-bus.js';
import type { ServerDeps } from '../deps.js';
import { AuthService } from './auth-service.js';
import { BrowserSessions } from './browser-sessions.js';
import { NpmWebLogin } from './npm-web-login.js';
import { DistTagService } from './dist-tags.js';
import { DocumentCache } from './document-cache.js';
import { HealthService } from './health-service.js';
import { PackageReadService } from './package-reads.js';
import { PackageUpdateService } from './package-updates.js';
import { PackagePutService } from './package-put.js';
import { PublishService } from './publish-service.js';
import { RegistrySignatures } from './registry-signatures.js';
import { AdvisoryService } from './advisories.js';
import { AttestationService } from './attestations.js';
import { BatchingDownloadRecorder, type DownloadRecorder } from './downloads.js';
import { ScoreRefresher } from './score-refresher.js';
import { SearchService } from './search-service.js';
import { TenantService } from './tenant-service.js';
import { TokenUseRecorder } from './token-uses.js';
import { TokenService } from './token-service.js';
import { SecondFactorService } from './second-factor.js';
import { UserAdmin } from './user-admin.js';
import { Invitations } from './invitations.js';
import { TeamService } from './team-service.js';
import { RateLimitService } from './rate-limits.js';
import { createMemoryCounterStore, createMemoryUpstreamAnswers } from '../storage/create-storage.js';
import { UplinkService } from './uplinks/uplink-service.js';
import { HttpUpstreamClient, type UpstreamClient } from './uplinks/upstream-client.js';
import { UpstreamKeys } from './uplinks/upstream-keys.js';
import { AuditTrail } from './audit-trail.js';
import { Administrators } from './audit-access.js';
import { AuditRetention } from './audit-retention.js';
import { WebhookAdmin } from './webhook-admin.js';
import { WebhookDispatcher } from './webhook-dispatcher.js';
import { UpstreamAdvisories, type AskUplink } from './uplinks/upstream-advisories.js';
import { UpstreamAttestations } from './uplinks/upstream-attestations.js';

/**
 * With other nodes writing to the same database, no cached document is further behind it than
 * this: the bus's read of the database's log of writes keeps entries current, and without it
 * (the database unreachable) they are rebuilt.
 */
const SHARED_MAX_AGE_MS = 1000;
/**
 * Nor any kept search response older than this without a read refreshing it (for as long again,
 * it is answered while one read does). Every change of results is announced on the bus
 * (package writes, new download counts, score refreshes), so this only bounds what a message lost
 * without a disconnect would leave; a query costs PostgreSQL the scan of all its matches, which
 * a one-second bound made every popular query pay every second on every node.
 */
const SHARED_SEARCH_MAX_AGE_MS = 60_000;

/** The use cases of the registry, free of HTTP types; routes call exactly one of them each. */
export interface Services {
  tenants: TenantService;
  auth: AuthService;
  /** Sign-in sessions of the web interface. */
  browserSessions: BrowserSessions;
  /** npm's web login (`npm login` through the browser). */
  npmLogin: NpmWebLogin;
  rateLimits: RateLimitService;
  downloads: DownloadRecorder;
  packageReads: PackageReadService;
  publish: PublishService;
  /** `PUT /<name>` whole: a publish or an edit of the document, with every check, the limit and the audit log. */
  packagePut: PackagePutService;
  /** The registry's signing keys and signatures (dist.signatures, /-/npm/v1/keys). */
  signatures: RegistrySignatures;
  /** The uplinks' public keys, listed beside the registry's own (proxied packages keep their signatures). */
  upstreamKeys: UpstreamKeys;
  /** Security advisories (publish, withdraw, npm audit's endpoints). */
  advisories: AdvisoryService;
  /** Provenance and publish attestations of versions published here. */
  attestations: AttestationService;
  packageUpdates: PackageUpdateService;
  distTags: DistTagService;
  search: SearchService;
  health: HealthService;
  /** Packages served from upstream registries (uplinks), cached. */
  uplinks: UplinkService;
  /** Two-factor sign-in (TOTP): enrolment, codes, recovery codes. */
  secondFactors: SecondFactorService;
  /** A user's own tokens (npm's token API, `pkg token`, the web account page). */
  tokens: TokenService;
  /** When and from where each token was last used, written in batches. */
  tokenUses: TokenUseRecorder;
  /** Accounts as administrators manage them (the admin HTTP API; the command line has its own). */
  users: UserAdmin;
  /** One-time invitations to create an account. */
  invitations: Invitations;
  /** Teams, their members and the namespaces they own. */
  teams: TeamService;
  /** Package documents kept in memory (its hit counts feed /-/metrics). */
  documentCache: DocumentCache;
  /** The audit log: every change and refused attempt, recorded once (and webhook deliveries made from it). */
  audit: AuditTrail;
  /** Keeps the audit log to its retention (started with the background work). */
  auditRetention: AuditRetention;
  /** Who administers each registry (reads its audit log, manages its webhooks over HTTP). */
  administrators: Administrators;
  /** Managing webhooks (the HTTP API; the command line builds its own). */
  webhooks: WebhookAdmin;
  /** Sends webhook deliveries from the shared outbox. */
  webhookDispatcher: WebhookDispatcher;
  /** Starts background work that needs no request: webhook deliveries, audit retention (the app's onReady). */
  start(): void;
  /** Stops background work and writes buffered download counts (the app's onClose). */
  close(): Promise<void>;
}

export interface ServicesOptions {
  /** Where background failures go (buffered count writes, score refreshes). */
  onError?: (err: unknown, task: string) => void;
  /** Where failed upstream requests are reported (uplinks). */
  onUplinkFailure?: (uplink: string, what: string, why: string) => void;
  /** How uplinks are reached; undici over HTTP(S) when not given. */
  upstreamClient?: UpstreamClient;
  /** Where audit retention reports; nowhere when not given. */
  log?: { info(details: object, message: string): void; error(details: object, message: string): void };
}

export function createServices(deps: ServerDeps, options: ServicesOptions = {}): Services {
  const onError = options.onError ?? (() => undefined);
  const counters = deps.counters ?? createMemoryCounterStore();
  const tenants = new TenantService(deps);
  // Everything a node (or Redis) keeps of a tenant is keyed by its incarnation too: a tenant
  // deleted and created again under the same name starts empty everywhere.
  const { scopeOf } = tenants;
  const auth = new AuthService(deps, counters, scopeOf);
  const rateLimits = new RateLimitService(counters, scopeOf);
  const tokenUses = new TokenUseRecorder(deps.registry, deps.now, (err) => onError(err, 'recording token uses'));
  const { shared } = deps;
  const documents = new DocumentCache(deps.bus, deps.config.documentCache, {
    scopeOf,
    ...(shared ? { maxAgeMs: SHARED_MAX_AGE_MS } : {}),
  });
  const downloads = new BatchingDownloadRecorder(
    { counts: deps.downloadCounts, search: deps.search, now: deps.now, scopeOf, bus: deps.bus },
    { scoreIntervalMs: deps.config.downloadScoreInterval * 1000, onError: (err) => onError(err, 'writing download counts') },
  );
  const scores = new ScoreRefresher(deps, { onError: (err) => onError(err, 'refreshing search scores') });
  const search = new SearchService(deps, { scopeOf, ...(shared ? { sharedMaxAgeMs: SHARED_SEARCH_MAX_AGE_MS } : {}) });
  const packageReads = new PackageReadService(deps, documents, scopeOf);
  const upstream = options.upstreamClient ?? new HttpUpstreamClient();
  const teams = new TeamService(deps);
  const uplinks = new UplinkService(deps, packageReads, {
    client: upstream,
    scopeOf,
    ...(options.onUplinkFailure ? { onFailure: options.onUplinkFailure } : {}),
  });
  const webhookDispatcher = new WebhookDispatcher(deps, { onError: (err) => onError(err, 'sending webhooks') });
  const audit = new AuditTrail(deps, () => webhookDispatcher.poke());
  const auditRetention = new AuditRetention(
    audit,
    deps.config.auditRetentionDays,
    options.log ?? { info: () => undefined, error: () => undefined },
  );
  const askUplink: AskUplink = (...args) => uplinks.ask(...args);
  const nowMs = deps.nowMs ?? (() => deps.now().getTime());
  const upstreamAnswers = deps.upstreamAnswers ?? createMemoryUpstreamAnswers();
  // The package writers' announcements also render what they wrote, ahead of its first read.
  const writers = { ...deps, bus: new RenderingBus(deps.bus, (tenant, name) => packageReads.renderWritten(tenant, name)) };
  const publish = new PublishService(writers, teams);
  const packageUpdates = new PackageUpdateService(writers);
  const secondFactors = new SecondFactorService(deps);
  return {
    tenants,
    audit,
    auditRetention,
    administrators: new Administrators(deps.registry),
    webhooks: new WebhookAdmin(deps),
    webhookDispatcher,
    start() {
      webhookDispatcher.start();
      auditRetention.start();
    },
    auth,
    browserSessions: new BrowserSessions(deps.registry, deps.now),
    npmLogin: new NpmWebLogin(deps.registry, auth, deps.now),
    rateLimits,
    downloads,
    packageReads,
    uplinks,
    publish,
    packagePut: new PackagePutService({
      config: deps.config,
      publish,
      packageUpdates,
      rateLimits,
      secondFactors,
      audit,
      onError,
    }),
    signatures: new RegistrySignatures(deps),
    advisories: new AdvisoryService(deps, { upstream: new UpstreamAdvisories(askUplink, nowMs, upstreamAnswers) }),
    attestations: new AttestationService(deps, new UpstreamAttestations(askUplink, nowMs, upstreamAnswers)),
    upstreamKeys: new UpstreamKeys(upstream, nowMs),
    packageUpdates,
    distTags: new DistTagService(writers),
    health: new HealthService(deps, uplinks),
    documentCache: documents,
    search,
    tokenUses,
    tokens: new TokenService(auth, deps.now),
    secondFactors,
    users: new UserAdmin(deps.registry, { passwordMinLength: deps.config.passwordMinLength, now: deps.now, teams: deps.teams }),
    invitations: new Invitations(deps.registry, {
      ttlSeconds: deps.config.invitationTtl,
      passwordMinLength: deps.config.passwordMinLength,
      now: deps.now,
    }),
    teams,
    async close() {
      await webhookDispatcher.stop();
      await auditRetention.stop();
      await tokenUses.flush();
      await scores.close();
      await downloads.close();
      await upstream.close();
    },
  };
}
