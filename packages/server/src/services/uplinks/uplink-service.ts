import { ProtocolError, packageNotFound, type PackageDocument, type VersionRecord } from '@pkg/protocol';
import type { ServerDeps } from '../../deps.js';
import { nextRevision } from '../revisions.js';
import { parseFileName, tarballEtag, type PackageReadService, type ReadScope, type TarballFile } from '../package-reads.js';
import type { DocumentForm } from '../package-document.js';
import type { Representation } from '../representation.js';
import { blobKeyFor } from '../../storage/blob-keys.js';
import {
  GLOBAL_TENANT,
  type BlobUpload,
  type StoredPackage,
  type TenantId,
  type UplinkCacheRecord,
  type UplinkCacheStore,
} from '../../storage/ports.js';
import { CircuitBreaker, type CircuitState } from './circuit-breaker.js';
import { TarballTee } from './tarball-tee.js';
import { withLiveResults } from './live-search.js';
import type { Uplink, UplinkRules } from '../../config/uplink-config.js';
import { integrityCheck, isCachedCopy, mergeCached, upstreamDocument } from './upstream-document.js';
import type { UpstreamClient, UpstreamRequest, UpstreamResult } from './upstream-client.js';
import { singleIncarnation, type TenantScopeOf } from '../tenant-scope.js';

/**
 * A tarball the upstream has and this registry has not stored yet: the answer to a HEAD (no
 * `open`), or to a GET while it is being downloaded (`open` streams it as it arrives).
 */
export type UpstreamFile = Omit<TarballFile, 'open'> & Partial<Pick<TarballFile, 'open'>>;

/** One upstream download of a tarball, shared by every request for it meanwhile. */
interface TarballDownload {
  /**
   * Resolves once the upstream answered 200: with the stream of the bytes as they arrive when
   * it announced their length (so that the answer's Content-Length is true), else undefined.
   */
  answered: Promise<{ tee: TarballTee; length: number } | undefined>;
  /** Resolves when the verified tarball is stored; rejects with the error to answer. */
  done: Promise<void>;
}

/** A package document of a covered name, and whether it is served stale (the upstream is down). */
export interface UplinkDocument {
  representation: Representation;
  stale: boolean;
}

/** Figures of one uplink since start, for /-/metrics. */
export interface UplinkStats {
  tenant: TenantId;
  uplink: string;
  /** Requests sent upstream (documents and tarballs). */
  requests: number;
  /** Answers given from the cache without asking the upstream. */
  hits: number;
  /** Cached documents served because the upstream could not be asked. */
  stale: number;
  /** Upstream requests that failed: down, refused, unusable, or a tarball that failed its integrity. */
  failures: number;
}

/** An uplink's circuit, for /-/health. */
export interface UplinkHealth {
  tenant: TenantId;
  uplink: string;
  circuit: CircuitState;
  failures: number;
}

export interface UplinkServiceOptions {
  client: UpstreamClient;
  /** Told of every failed upstream request (the server logs it as a warning). */
  onFailure?: (uplink: string, what: string, why: string) => void;
  /** The key of what this node remembers of a tenant: its incarnation too (TenantService.scopeOf). */
  scopeOf?: TenantScopeOf;
}

/** How a refresh ended: the document is current, served stale, or does not exist upstream. */
type Outcome = 'fresh' | 'stale' | 'missing';

/** What this node knows without asking the store: until when a package is fresh, or missing. */
interface Known {
  until: number;
  missing: boolean;
  /** Served stale meanwhile: the upstream could not be asked a moment ago. */
  stale: boolean;
  /** The figures of the uplink it came from (counted on each read without a lookup). */
  stats: UplinkStats;
}

/** How long an upstream 404 is remembered: a package published upstream right now shows up soon. */
const NOT_FOUND_MS = 30_000;
/** How long a stale answer is given from memory before the upstream is tried again. */
const STALE_MEMORY_MS = 5_000;
/** Retry-After of a 503 when no circuit is open (seconds). */
const RETRY_AFTER_S = 10;
/** Largest upstream package document accepted. */
const MAX_DOCUMENT_BYTES = 64 * 1024 * 1024;
/** How long /-/health waits for the list of tenants (its database check has the same bound). */
const HEALTH_TIMEOUT_MS = 2_000;
/** Bound of the per-node freshness map; it is only a shortcut past the store. */
const MAX_KNOWN = 100_000;

/** What UplinkService reaches of the server's deps. */
export type UplinkServiceDeps = Pick<
  ServerDeps,
  'config' | 'registry' | 'packages' | 'blobs' | 'bus' | 'now' | 'nowMs' | 'uplinkCache'
>;

/**
 * Packages served from upstream registries (uplinks), cached in this registry's own stores: the
 * document as a stored package (so the document cache, search and `/-/all` serve it like a local
 * one) with its freshness in the UplinkCacheStore, and each tarball in the blob store once it
 * has been downloaded and verified. Concurrent requests for one package or tarball make one
 * upstream request; each uplink has a circuit breaker.
 */
export class UplinkService {
  readonly #deps: UplinkServiceDeps;
  readonly #reads: PackageReadService;
  readonly #client: UpstreamClient;
  readonly #store: UplinkCacheStore;
  /** What this node knows of each package, per tenant (see #knownOf). */
  readonly #globalKnown = new Map<string, Known>();
  readonly #tenantKnown = new Map<TenantId, Map<string, Known>>();
  readonly #refreshes = new Map<string, Promise<Outcome>>();
  readonly #downloads = new Map<string, TarballDownload>();
  /** By tenant scope and uplink: a tenant created again starts with closed circuits. */
  readonly #circuits = new Map<string, { tenant: TenantId; uplink: string; circuit: CircuitBreaker }>();
  readonly #stats = new Map<string, UplinkStats>();
  readonly #onFailure: (uplink: string, what: string, why: string) => void;
  /** deps.now in milliseconds, without making a Date (read on every request of a cached document). */
  readonly #clock: () => number;

  readonly #scopeOf: TenantScopeOf;

  constructor(deps: UplinkServiceDeps, reads: PackageReadService, options: UplinkServiceOptions) {
    this.#deps = deps;
    this.#scopeOf = options.scopeOf ?? singleIncarnation;
    this.#reads = reads;
    this.#client = options.client;
    this.#onFailure = options.onFailure ?? (() => undefined);
    this.#store = deps.uplinkCache;
    this.#clock = deps.nowMs ?? (() => deps.now().getTime());
  }

  /**
   * The document of a covered name while it is fresh on this node and the document cache holds
   * it, without a promise; undefined for anything else (then `document`). This is all a cached
   * upstream document costs beyond a local one: one map lookup and a clock read.
   */
  freshDocument(scope: ReadScope, name: string, form: DocumentForm): Representation | undefined {
    const known = this.#knownOf(scope.tenant)?.get(name);
    if (known === undefined || known.stale || known.missing || known.until <= this.#clock()) return undefined;
    const cached = this.#reads.cachedDocument(scope, name, form);
    if (cached === null || cached === undefined) return undefined;
    known.stats.hits++;
    return cached;
  }

  /**
   * The document of a name `uplink` covers: as this node knows it while that is fresh, else
   * after revalidating it upstream. 404 when the upstream has no such package, 503
   * UPSTREAM_UNAVAILABLE when it cannot be asked and nothing is cached, 502 BAD_GATEWAY when it
   * refuses our credentials or answers something unusable.
   */
  async document(scope: ReadScope, uplink: Uplink, name: string, form: DocumentForm): Promise<UplinkDocument> {
    const known = this.#knownOf(scope.tenant)?.get(name);
    if (known !== undefined && known.until > this.#clock()) {
      const stale = known.stale;
      if (stale) known.stats.stale++;
      else known.stats.hits++;
      if (known.missing) throw packageNotFound(name);
      return { representation: await this.#reads.document(scope, name, form), stale };
    }
    const outcome = await this.#refresh(scope.tenant, uplink, name);
    if (outcome === 'missing') throw packageNotFound(name);
    if (outcome === 'stale') this.#statsOf(scope.tenant, uplink).stale++;
    return { representation: await this.#reads.document(scope, name, form), stale: outcome === 'stale' };
  }

  /**
   * Makes sure the blob store holds the tarball `fileName` of a covered package, downloading it
   * from the uplink (and verifying it against the version's integrity) the first time. Other
   * files, and versions that do not exist, are left for the read that follows to answer 404
   * (undefined: read the store).
   *
   * A GET is answered while the tarball arrives: the result's `open` streams it as it is stored
   * and verified (see TarballTee; every concurrent request shares the one download), and a
   * tarball that fails its integrity is cut short for every client and not stored. When the
   * upstream does not announce the length, the download is stored first (undefined).
   *
   * A HEAD does not download: a tarball not stored yet is asked of the upstream with a HEAD, and
   * what it says (the file is there, its size) is returned to answer with; only an upstream that
   * does not tell the size makes it download, so that the answer's Content-Length is true.
   */
  async ensureFile(
    scope: ReadScope,
    uplink: Uplink,
    name: string,
    fileName: string,
    method: 'GET' | 'HEAD' = 'GET',
  ): Promise<UpstreamFile | undefined> {
    const parsed = parseFileName(name, fileName);
    if (parsed === undefined || parsed.kind !== 'tarball') return undefined;
    const { tenant } = scope;
    const key = blobKeyFor(tenant, name, parsed.version);
    const flightKey = `${this.#scopeOf(tenant)}\0${key}`;
    // A HEAD while this node downloads it: answered as the stored copy will be. Looked up before
    // the store is asked: a download that ends between the two has stored its copy by then,
    // whereas one that ended during the store's answer would leave neither (and the HEAD would
    // ask the upstream again).
    const downloading = this.#downloads.get(flightKey);
    if (method === 'HEAD' && downloading !== undefined) {
      await downloading.done;
      return undefined;
    }
    // Stored meanwhile (another request, another node): nothing to download.
    if ((await this.#deps.blobs.stat(key)) !== undefined) return undefined;
    let record = await this.#versionRecord(scope, name, parsed.version);
    if (record === undefined) {
      // Nothing cached yet, or a document older than maxAge that may not list the version yet. A
      // fresh document is not asked again: a version it lacks is a 404, as for any client of it.
      const outcome = await this.#refresh(tenant, uplink, name);
      if (outcome === 'missing') return undefined;
      record = await this.#versionRecord(scope, name, parsed.version);
      if (record === undefined && outcome === 'stale') throw this.#unavailable(tenant, uplink, `${name}@${parsed.version}`);
    }
    if (record === undefined || !/^https?:\/\//i.test(record.dist.tarball)) return undefined;
    let download = this.#downloads.get(flightKey);
    if (method === 'HEAD') {
      // Being downloaded: answer as the stored copy will, not from a second upstream request.
      if (download !== undefined) {
        await download.done;
        return undefined;
      }
      const size = await this.#probe(tenant, uplink, record);
      if (size !== undefined)
        return {
          version: record.version,
          kind: 'tarball',
          size,
          etag: tarballEtag(record),
          streamed: size > this.#deps.config.tarballStreamThreshold,
        };
    }
    if (download === undefined) {
      const started = this.#download(tenant, uplink, record, key);
      download = started;
      void started.done
        .catch(() => undefined)
        .finally(() => {
          if (this.#downloads.get(flightKey) === started) this.#downloads.delete(flightKey);
        });
      this.#downloads.set(flightKey, download);
    }
    // A HEAD that had to download (the upstream's HEAD told no size) answers from the stored copy.
    const streaming =
      method === 'HEAD' ? undefined : await Promise.race([download.answered, download.done.then(() => undefined)]);
    if (streaming === undefined) {
      await download.done;
      return undefined;
    }
    const { done } = download;
    const reads = this.#reads;
    return {
      version: record.version,
      kind: 'tarball',
      size: streaming.length,
      etag: tarballEtag(record),
      // No ranges of a tarball still arriving: a Range request gets all of it (RFC 9110 allows).
      streamed: false,
      async open() {
        const body = streaming.tee.join();
        if (body !== undefined) return body;
        // Joined too late to be sent every byte from memory: the stored copy, once it is there.
        await done;
        return (await reads.file(scope, name, fileName)).open();
      },
    };
  }

  /**
   * The local search response with live results of the uplinks that opted in after the local
   * ones (see live-search.ts); never fails because of an uplink.
   */
  async withLiveSearch(
    tenant: TenantId,
    rules: UplinkRules,
    local: Buffer,
    request: { text: string; size: number; from: number },
  ): Promise<Buffer> {
    const now = this.#now();
    return withLiveResults(
      local,
      request,
      rules,
      this.#client,
      (uplink) => this.#circuitOf(tenant, uplink).state(now) !== 'open',
      (uplink, ok) => {
        const stats = this.#statsOf(tenant, uplink);
        stats.requests++;
        if (!ok) stats.failures++;
      },
    );
  }

  /**
   * Sends `uplink` a request of another kind than documents and tarballs (advisories,
   * attestations) under the same circuit and figures: an upstream found down for one is down for
   * all. Undefined when its circuit is open (nothing was sent).
   */
  async ask(tenant: TenantId, uplink: Uplink, what: string, request: UpstreamRequest): Promise<UpstreamResult | undefined> {
    const circuit = this.#circuitOf(tenant, uplink);
    const now = this.#now();
    if (!circuit.allow(now)) return undefined;
    const stats = this.#statsOf(tenant, uplink);
    stats.requests++;
    const result = await this.#client.get(request);
    if (result.kind === 'down') circuit.failure(now);
    else circuit.success();
    const problem =
      result.kind === 'down' || result.kind === 'bad'
        ? result.reason
        : result.kind === 'refused'
          ? `refused this registry's credentials (${result.status})`
          : undefined;
    if (problem !== undefined) {
      stats.failures++;
      this.#onFailure(uplink.name, what, problem);
    }
    return result;
  }

  /** Each uplink's figures since start. */
  stats(): UplinkStats[] {
    return [...this.#stats.values()];
  }

  /**
   * The circuit of every configured uplink: the server's, and with registryDomain each tenant's
   * (its own uplinks, else the server's: a tenant has circuits of its own). One that was never
   * asked is closed. When the tenants cannot be listed, those asked since start.
   */
  async health(): Promise<UplinkHealth[]> {
    const now = this.#now();
    const { config } = this.#deps;
    const configured: [TenantId, readonly { name: string }[]][] = [[GLOBAL_TENANT, config.uplinks]];
    if (config.registryDomain) {
      let timer: NodeJS.Timeout | undefined;
      try {
        const tenants = await Promise.race([
          this.#deps.registry.tenants.list(),
          new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('timeout')), HEALTH_TIMEOUT_MS))),
        ]);
        for (const tenant of tenants) configured.push([tenant.name, tenant.settings.uplinks ?? config.uplinks]);
      } catch {
        // The database check of the same report says why; the circuits known here still count.
      } finally {
        clearTimeout(timer);
      }
    }
    const report = new Map<string, UplinkHealth>();
    for (const [tenant, uplinks] of configured) {
      for (const { name } of uplinks) report.set(`${tenant}\0${name}`, { tenant, uplink: name, circuit: 'closed', failures: 0 });
    }
    for (const [key, { tenant, uplink, circuit }] of this.#circuits) {
      // Circuits of a tenant deleted (or created again) since are not its circuits.
      if (key !== `${this.#scopeOf(tenant)}\0${uplink}`) continue;
      report.set(`${tenant}\0${uplink}`, { tenant, uplink, circuit: circuit.state(now), failures: circuit.failures });
    }
    return [...report.values()];
  }

  async #versionRecord(scope: ReadScope, name: string, version: string): Promise<VersionRecord | undefined> {
    try {
      const record = await this.#reads.version(scope, name, version);
      return record.version === version ? record : undefined;
    } catch (err) {
      if (err instanceof ProtocolError && err.code === 'NOT_FOUND') return undefined;
      throw err;
    }
  }

  /** One revalidation per package at a time; every concurrent request waits for the same one. */
  #refresh(tenant: TenantId, uplink: Uplink, name: string): Promise<Outcome> {
    const key = `${this.#scopeOf(tenant)}\0${name}`;
    let pending = this.#refreshes.get(key);
    if (pending === undefined) {
      pending = this.#revalidate(tenant, uplink, name).finally(() => this.#refreshes.delete(key));
      this.#refreshes.set(key, pending);
    }
    return pending;
  }

  async #revalidate(tenant: TenantId, uplink: Uplink, name: string): Promise<Outcome> {
    const now = this.#now();
    const known = this.#knownOf(tenant)?.get(name);
    // Fresh on this node (a tarball request of a fresh package): nothing to ask.
    if (known !== undefined && known.until > now) return known.missing ? 'missing' : known.stale ? 'stale' : 'fresh';
    const [record, stored] = await Promise.all([this.#store.get(tenant, name), this.#deps.packages.package(tenant, name).read()]);
    const current = stored && !stored.unpublished ? stored.document : undefined;
    if (current !== undefined && !isCachedCopy(current)) {
      // Published here before a rule covered the name: it stays local, never overwritten.
      this.#remember(tenant, uplink, name, now + uplink.maxAgeMs, false);
      return 'fresh';
    }
    // A copy from another uplink (the rules changed) is not this uplink's: versions are never merged.
    const cached = current !== undefined && (record === undefined || record.uplink === uplink.name) ? current : undefined;
    if (cached !== undefined && record !== undefined) {
      const until = Date.parse(record.fetchedAt) + uplink.maxAgeMs;
      if (until > now) {
        // Another node (or this one, before a restart) fetched it recently.
        this.#statsOf(tenant, uplink).hits++;
        this.#remember(tenant, uplink, name, until, false);
        return 'fresh';
      }
    }
    const circuit = this.#circuitOf(tenant, uplink);
    if (!circuit.allow(now)) return this.#unreachable(tenant, uplink, name, cached);
    this.#statsOf(tenant, uplink).requests++;
    const result = await this.#client.get({
      url: documentUrl(uplink, name),
      timeoutMs: uplink.timeoutMs,
      authorization: uplink.authorization,
      accept: 'application/json',
      etag: cached !== undefined ? record?.etag : undefined,
      maxBytes: MAX_DOCUMENT_BYTES,
      compressed: true,
    });
    return this.#settle(tenant, uplink, name, result, cached, record);
  }

  async #settle(
    tenant: TenantId,
    uplink: Uplink,
    name: string,
    result: UpstreamResult,
    cached: PackageDocument | undefined,
    record: UplinkCacheRecord | undefined,
  ): Promise<Outcome> {
    const circuit = this.#circuitOf(tenant, uplink);
    const now = this.#now();
    switch (result.kind) {
      case 'not-modified':
        circuit.success();
        if (cached === undefined)
          return this.#unusable(tenant, uplink, name, cached, 'answered 304 to a request without a validator');
        await this.#store.put(tenant, name, {
          uplink: uplink.name,
          etag: record?.etag ?? null,
          fetchedAt: new Date(now).toISOString(),
        });
        this.#remember(tenant, uplink, name, now + uplink.maxAgeMs, false);
        return 'fresh';
      case 'ok': {
        circuit.success();
        let parsed: unknown;
        try {
          parsed = JSON.parse(result.body.toString('utf8'));
        } catch {
          return this.#unusable(tenant, uplink, name, cached, 'answered a document that is not JSON');
        }
        const fresh = upstreamDocument(name, parsed, documentUrl(uplink, name));
        if (typeof fresh === 'string') return this.#unusable(tenant, uplink, name, cached, fresh);
        await this.#write(tenant, uplink, name, fresh, record);
        await this.#store.put(tenant, name, { uplink: uplink.name, etag: result.etag, fetchedAt: new Date(now).toISOString() });
        this.#remember(tenant, uplink, name, now + uplink.maxAgeMs, false);
        return 'fresh';
      }
      case 'not-found':
        circuit.success();
        this.#remember(tenant, uplink, name, now + Math.min(NOT_FOUND_MS, Math.max(uplink.maxAgeMs, 1000)), true);
        return 'missing';
      case 'refused':
        circuit.success();
        return this.#unusable(tenant, uplink, name, cached, `refused this registry's credentials (${result.status})`);
      case 'bad':
        circuit.success();
        return this.#unusable(tenant, uplink, name, cached, result.reason);
      case 'down':
        circuit.failure(now);
        this.#statsOf(tenant, uplink).failures++;
        this.#onFailure(uplink.name, name, result.reason);
        return this.#unreachable(tenant, uplink, name, cached);
    }
  }

  /** Upstream down or its circuit open: the cached document stale, else 503. */
  #unreachable(tenant: TenantId, uplink: Uplink, name: string, cached: PackageDocument | undefined): Outcome {
    if (cached === undefined) throw this.#unavailable(tenant, uplink, name);
    // During an outage every request would otherwise read the store before answering stale.
    this.#remember(tenant, uplink, name, this.#now() + STALE_MEMORY_MS, false, true);
    return 'stale';
  }

  /** Upstream reachable but its answer unusable: the cached document stale, else 502. */
  #unusable(tenant: TenantId, uplink: Uplink, name: string, cached: PackageDocument | undefined, why: string): Outcome {
    this.#statsOf(tenant, uplink).failures++;
    this.#onFailure(uplink.name, name, why);
    if (cached === undefined) throw new ProtocolError('BAD_GATEWAY', `The upstream registry '${uplink.name}' ${why}`);
    this.#remember(tenant, uplink, name, this.#now() + STALE_MEMORY_MS, false, true);
    return 'stale';
  }

  #unavailable(tenant: TenantId, uplink: Uplink, what: string): ProtocolError {
    const retryAfter = this.#circuitOf(tenant, uplink).retryAfterSeconds(this.#now(), RETRY_AFTER_S);
    return new ProtocolError(
      'UPSTREAM_UNAVAILABLE',
      `The upstream registry '${uplink.name}' cannot be reached and '${what}' is not cached here; try again later`,
      { 'retry-after': String(retryAfter) },
    );
  }

  /** Writes the fetched document as the stored package, keeping cached versions as they are. */
  async #write(tenant: TenantId, uplink: Uplink, name: string, fresh: PackageDocument, record: UplinkCacheRecord | undefined) {
    const switched = record !== undefined && record.uplink !== uplink.name;
    const dropped = await this.#deps.packages.package(tenant, name).update<string[] | undefined>((stored) => {
      const current = stored && !stored.unpublished ? stored.document : undefined;
      // A local publish got there first (the rule was added meanwhile): it stays.
      if (current !== undefined && !isCachedCopy(current)) return { next: null, result: undefined };
      const document = current !== undefined && !switched ? mergeCached(current, fresh) : { ...fresh };
      document._rev = nextRevision(stored?.document._rev, document);
      const next: StoredPackage = { document, publishedVersions: Object.keys(document.versions), unpublished: false };
      const gone = switched && current !== undefined ? Object.keys(current.versions) : [];
      return { next, result: gone };
    });
    // Tarballs of the other uplink's versions must not be served for this uplink's versions.
    for (const version of dropped ?? []) await this.#deps.blobs.delete(blobKeyFor(tenant, name, version));
    if (dropped !== undefined) await this.#deps.bus.publish(tenant, name);
  }

  /** The size of a tarball the upstream has (HEAD), undefined when it does not say; else the error to answer. */
  async #probe(tenant: TenantId, uplink: Uplink, record: VersionRecord): Promise<number | undefined> {
    const what = `${record.name}@${record.version}`;
    const circuit = this.#circuitOf(tenant, uplink);
    const now = this.#now();
    if (!circuit.allow(now)) throw this.#unavailable(tenant, uplink, what);
    this.#statsOf(tenant, uplink).requests++;
    const result = await this.#client.get({
      method: 'HEAD',
      url: tarballUrl(uplink, record),
      timeoutMs: uplink.timeoutMs,
      authorization: uplink.authorization,
      accept: 'application/octet-stream',
      maxBytes: 0,
    });
    if (result.kind === 'down') {
      circuit.failure(now);
      this.#statsOf(tenant, uplink).failures++;
      this.#onFailure(uplink.name, what, result.reason);
      throw this.#unavailable(tenant, uplink, what);
    }
    circuit.success();
    if (result.kind === 'not-found')
      throw new ProtocolError('NOT_FOUND', `The upstream registry '${uplink.name}' has no tarball of '${what}'`);
    const maxBytes = this.#deps.config.maxTarballSize;
    const problem =
      result.kind === 'refused'
        ? `refused this registry's credentials (${result.status})`
        : result.kind === 'bad'
          ? result.reason
          : result.kind === 'not-modified'
            ? 'answered 304 to a request without a validator'
            : result.length !== undefined && result.length > maxBytes
              ? `has a tarball of '${what}' over ${maxBytes} bytes`
              : undefined;
    if (problem !== undefined || result.kind !== 'ok') {
      this.#statsOf(tenant, uplink).failures++;
      this.#onFailure(uplink.name, what, problem ?? 'unusable answer');
      throw new ProtocolError('BAD_GATEWAY', `The upstream registry '${uplink.name}' ${problem ?? 'answered unusably'}`);
    }
    return result.length;
  }

  /** Starts one download of a tarball (see TarballDownload). */
  #download(tenant: TenantId, uplink: Uplink, record: VersionRecord, key: string): TarballDownload {
    let announce!: (streaming: { tee: TarballTee; length: number } | undefined) => void;
    const answered = new Promise<{ tee: TarballTee; length: number } | undefined>((resolve) => (announce = resolve));
    return { answered, done: this.#fetchTarball(tenant, uplink, record, key, announce) };
  }

  /**
   * Streams the tarball into an upload of the blob store and to the clients (the tee), hashing
   * it on the way; the upload is committed, then the clients get the last byte, only when the
   * bytes match the version's integrity; else the upload is dropped and the clients cut off.
   * A client going away changes nothing here: the download goes on and is stored.
   */
  async #fetchTarball(
    tenant: TenantId,
    uplink: Uplink,
    record: VersionRecord,
    key: string,
    announce: (streaming: { tee: TarballTee; length: number } | undefined) => void,
  ): Promise<void> {
    const what = `${record.name}@${record.version}`;
    const circuit = this.#circuitOf(tenant, uplink);
    const now = this.#now();
    if (!circuit.allow(now)) throw this.#unavailable(tenant, uplink, what);
    this.#statsOf(tenant, uplink).requests++;
    const down = (reason: string): ProtocolError => {
      circuit.failure(now);
      this.#statsOf(tenant, uplink).failures++;
      this.#onFailure(uplink.name, what, reason);
      return this.#unavailable(tenant, uplink, what);
    };
    const unusable = (problem: string): ProtocolError => {
      this.#statsOf(tenant, uplink).failures++;
      this.#onFailure(uplink.name, what, problem);
      return new ProtocolError('BAD_GATEWAY', `The upstream registry '${uplink.name}' ${problem}`);
    };
    const result = await this.#client.stream({
      url: tarballUrl(uplink, record),
      timeoutMs: uplink.timeoutMs,
      authorization: uplink.authorization,
      accept: 'application/octet-stream',
    });
    if (result.kind === 'down') throw down(result.reason);
    circuit.success();
    if (result.kind === 'not-found')
      throw new ProtocolError('NOT_FOUND', `The upstream registry '${uplink.name}' has no tarball of '${what}'`);
    if (result.kind === 'refused') throw unusable(`refused this registry's credentials (${result.status})`);
    if (result.kind === 'bad') throw unusable(result.reason);
    if (result.kind === 'not-modified') throw unusable('answered 304 to a request without a validator');
    const maxBytes = this.#deps.config.maxTarballSize;
    const tooLarge = `sent a tarball of '${what}' over ${maxBytes} bytes`;
    if (result.length !== undefined && result.length > maxBytes) {
      result.body.destroy();
      throw unusable(tooLarge);
    }
    const check = integrityCheck(record);
    let upload: BlobUpload;
    try {
      upload = await this.#deps.blobs.upload(key);
    } catch (err) {
      result.body.destroy();
      throw err;
    }
    const { length } = result;
    // Clients that join meanwhile are sent what went before from memory while that is no more
    // than a tarball read whole (tarballStreamThreshold); later ones wait for the stored copy.
    const tee = length === undefined ? undefined : new TarballTee(this.#deps.config.tarballStreamThreshold, uplink.timeoutMs);
    if (tee !== undefined && length !== undefined) {
      announce({ tee, length });
      // The requests waiting join in their promise callbacks: they are all in before the first
      // chunk goes out, whatever the size of the tarball.
      await new Promise<void>((resolve) => setImmediate(resolve));
    } else announce(undefined);
    let size = 0;
    let received = false;
    try {
      for await (const chunk of result.body) {
        size += chunk.length;
        if (size > maxBytes) break;
        check.update(chunk);
        const stored = upload.write(chunk).catch((err: unknown) => {
          throw new StoreError(err);
        });
        if (tee === undefined) await stored;
        else await Promise.all([stored, tee.push(chunk)]);
      }
      received = size <= maxBytes;
    } catch (err) {
      await upload.abort();
      // The store failing is this registry's problem; the body failing is the upstream's.
      const failure = err instanceof StoreError ? err.cause : down(describeCut(err));
      tee?.fail(failure instanceof Error ? failure : new Error('the tarball could not be stored'));
      throw failure;
    } finally {
      result.body.destroy();
    }
    if (!received || !check.matches()) {
      await upload.abort();
      const refused = unusable(
        received ? `sent a tarball of '${what}' that does not match its integrity; it was refused` : tooLarge,
      );
      tee?.fail(refused);
      throw refused;
    }
    try {
      await upload.commit();
    } catch (err) {
      await upload.abort();
      tee?.fail(err instanceof Error ? err : new Error('the tarball could not be stored'));
      throw err;
    }
    // Stored before the clients have it whole: whatever they ask next (a retry, a HEAD, another
    // node) finds it, and the tarball cache answers the next request from memory.
    const whole = tee?.end();
    if (whole !== undefined) this.#reads.keepFile(tenant, record, whole);
  }

  #remember(tenant: TenantId, uplink: Uplink, name: string, until: number, missing: boolean, stale = false): void {
    let known = this.#knownOf(tenant);
    if (known === undefined) this.#tenantKnown.set(this.#scopeOf(tenant), (known = new Map<string, Known>()));
    if (known.size >= MAX_KNOWN) known.clear();
    known.set(name, { until, missing, stale, stats: this.#statsOf(tenant, uplink) });
  }

  /** Per tenant, so that a request builds no key; the global registry's without a lookup. */
  #knownOf(tenant: TenantId): Map<string, Known> | undefined {
    return tenant === GLOBAL_TENANT ? this.#globalKnown : this.#tenantKnown.get(this.#scopeOf(tenant));
  }

  #circuitOf(tenant: TenantId, uplink: Uplink): CircuitBreaker {
    const key = `${this.#scopeOf(tenant)}\0${uplink.name}`;
    let entry = this.#circuits.get(key);
    if (entry === undefined) this.#circuits.set(key, (entry = { tenant, uplink: uplink.name, circuit: new CircuitBreaker() }));
    return entry.circuit;
  }

  #statsOf(tenant: TenantId, uplink: Uplink): UplinkStats {
    // Counters since start, by tenant name: they feed /-/metrics series, which only grow.
    const key = `${tenant}\0${uplink.name}`;
    let stats = this.#stats.get(key);
    if (stats === undefined) {
      stats = { tenant, uplink: uplink.name, requests: 0, hits: 0, stale: 0, failures: 0 };
      this.#stats.set(key, stats);
    }
    return stats;
  }

  #now(): number {
    return this.#clock();
  }
}

function documentUrl(uplink: Uplink, name: string): string {
  return `${uplink.url}/${name}`;
}

/**
 * Where a version's tarball is fetched: its upstream URL when that is on the uplink's own origin,
 * else the npm path on the uplink. Never another host: our token goes only to the uplink, and a
 * document cannot make this registry fetch from anywhere else.
 */
function tarballUrl(uplink: Uplink, record: VersionRecord): string {
  const given = record.dist.tarball;
  try {
    if (new URL(given).origin === uplink.origin) return given;
  } catch {
    // Not a URL: fall through to the npm path.
  }
  return `${uplink.url}/${record.name}/-/${record.name}-${record.version}.tgz`;
}

/** A failure of the blob store while a download is written (not the upstream's fault). */
class StoreError extends Error {
  constructor(override readonly cause: unknown) {
    super('blob store write failed');
  }
}

/** Why a tarball body stopped arriving: an error code, never a URL. */
function describeCut(err: unknown): string {
  const code = (err as { code?: unknown })?.code;
  return typeof code === 'string' ? `the tarball was cut off (${code})` : 'the tarball was cut off';
}
