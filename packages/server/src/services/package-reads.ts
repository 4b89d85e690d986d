import type { Readable } from 'node:stream';
import semver from 'semver';
import {
  ABBREVIATED_ACCEPT,
  fileNotFound,
  packageNotFound,
  versionNotFound,
  type PackageDocument,
  type VersionRecord,
} from '@pkg/protocol';
import type { ServerDeps } from '../deps.js';
import { blobKeyFor, sigstoreKeyFor } from '../storage/blob-keys.js';
import type { ByteRange, StoredPackage, TenantId } from '../storage/ports.js';
import { BudgetLru } from '../storage/budget-lru.js';
import type { CachedValue, DocumentCache } from './document-cache.js';
import { renderAbbreviated, renderFull, type DocumentForm } from './package-document.js';
import { Representation } from './representation.js';
import { singleIncarnation, type TenantScopeOf } from './tenant-scope.js';

export const JSON_TYPE = 'application/json';

/** A stored file of a version, ready to stream. */
export interface TarballFile {
  version: string;
  kind: 'tarball' | 'sigstore';
  size: number;
  /** Strong validator: the version's integrity for tarballs (their bytes never change). */
  etag: string;
  /**
   * Larger than `tarballStreamThreshold`: always streamed, never cached, and `Range` requests
   * get parts of it.
   */
  streamed: boolean;
  /**
   * The bytes (of `range` only, when given: streamed files only): whole when the blob store reads
   * small blobs cheaply, else a stream.
   */
  open(range?: ByteRange): Promise<Readable | Buffer>;
}

/** A tarball held in memory (tarballCache), with the integrity its bytes have. */
export interface CachedFile extends TarballFile {
  bytes: Buffer;
  integrity: string;
}

/** Which registry and which public tarball URL a read is for. */
export interface ReadScope {
  tenant: TenantId;
  tarballBaseUrl: string;
}

/** What PackageReadService reaches of the server's deps. */
export type PackageReadServiceDeps = Pick<ServerDeps, 'config' | 'packages' | 'blobs'>;

/**
 * The read side of packages: documents (served from the document cache), version records and
 * tarball files. A package that does not exist, or was unpublished as a whole, is 404.
 */
export class PackageReadService {
  readonly #deps: PackageReadServiceDeps;
  readonly #cache: DocumentCache;
  /**
   * Tarballs recently read, by blob key and integrity: a version's bytes never change, but a
   * tenant deleted and made again could publish other bytes under the same key.
   */
  readonly #files: BudgetLru<CachedFile>;

  readonly #scopeOf: TenantScopeOf;

  constructor(deps: PackageReadServiceDeps, cache: DocumentCache, scopeOf: TenantScopeOf = singleIncarnation) {
    this.#deps = deps;
    this.#cache = cache;
    this.#scopeOf = scopeOf;
    this.#files = new BudgetLru(deps.config.tarballCache);
  }

  /** The serialized document in `form`, from the cache when it is there. */
  async document(scope: ReadScope, name: string, form: DocumentForm): Promise<Representation> {
    return (await this.#cached(scope, name, form)).representation;
  }

  /**
   * The serialized document in `form` if the cache holds it: null when the package is known not
   * to exist, undefined when only `document` can tell (a read of the store).
   */
  cachedDocument(scope: ReadScope, name: string, form: DocumentForm): Representation | null | undefined {
    const cached = this.#cache.peek(scope.tenant, name, variantOf(scope, form));
    return cached === null || cached === undefined ? cached : cached.representation;
  }

  /**
   * The package as stored (tombstones included), or undefined: the web pages show more of it
   * than a document form holds, and look up its dependencies.
   */
  async stored(tenant: TenantId, name: string): Promise<StoredPackage | undefined> {
    return this.#deps.packages.package(tenant, name).read();
  }

  /** The full document read from the store now, bypassing the cache (`?write=true`). */
  async freshDocument(scope: ReadScope, name: string): Promise<Representation> {
    const stored = visible(await this.#deps.packages.package(scope.tenant, name).read(), name);
    return build(stored, scope.tarballBaseUrl, 'full').representation;
  }

  /** A version record by exact version, dist-tag or semver range (highest match). */
  async version(scope: ReadScope, name: string, spec: string): Promise<VersionRecord> {
    const doc = (await this.#cached(scope, name, 'full')).value as PackageDocument;
    const version = resolveVersion(doc, spec);
    const record = version === undefined ? undefined : doc.versions[version];
    if (!record) throw versionNotFound(name, spec);
    return record;
  }

  /**
   * A file of a published version: `<name>-<version>.tgz`, or the `.sigstore` bundle kept from
   * its publish. Any other file name, or a version that is not published, is 404.
   */
  async file(scope: ReadScope, name: string, fileName: string): Promise<TarballFile> {
    const doc = (await this.#cached(scope, name, 'full')).value as PackageDocument;
    const { version, kind, key, etag, integrity } = locateFile(scope, name, fileName, doc);
    const notFound = () => fileNotFound(name, fileName);
    const blobs = this.#deps.blobs;
    const threshold = this.#deps.config.tarballStreamThreshold;
    // The size and, for a small blob, its bytes in one call where the driver can (a cache miss
    // of a tarball would otherwise stat it, then read it).
    const small = blobs.readSmall ? await blobs.readSmall(key, threshold) : undefined;
    const size = small !== undefined ? small.size : (await blobs.stat(key))?.size;
    if (size === undefined) throw notFound();
    const bytes = small?.bytes;
    if (bytes !== undefined) {
      const open = async () => bytes;
      const file: CachedFile = { version, kind, size: bytes.length, etag, streamed: false, open, bytes, integrity };
      if (kind === 'tarball') this.#files.set(`${this.#scopeOf(scope.tenant)}\0${name}\0${fileName}`, file, bytes.length);
      return file;
    }
    const streamed = size > threshold;
    return {
      version,
      kind,
      size,
      etag,
      streamed,
      async open(range) {
        const blob = await blobs.get(key, range);
        if (!blob) throw notFound();
        return blob.stream;
      },
    };
  }

  /**
   * Puts a version's tarball, read or received whole and verified, in the tarball cache (an
   * upstream tarball streamed to its first clients is never read back from the store).
   */
  keepFile(tenant: TenantId, record: VersionRecord, bytes: Buffer): void {
    const { name, version } = record;
    const integrity = record.dist.integrity ?? record.dist.shasum;
    const etag = tarballEtag(record);
    const open = async () => bytes;
    const file: CachedFile = { version, kind: 'tarball', size: bytes.length, etag, streamed: false, open, bytes, integrity };
    this.#files.set(`${this.#scopeOf(tenant)}\0${name}\0${name}-${version}.tgz`, file, bytes.length);
  }

  /**
   * A tarball the caches hold whole (its package's document and its bytes), for an answer
   * without a promise; undefined when only `file` can tell.
   */
  cachedFile(scope: ReadScope, name: string, fileName: string): CachedFile | undefined {
    const hit = this.#files.get(`${this.#scopeOf(scope.tenant)}\0${name}\0${fileName}`);
    if (hit === undefined) return undefined;
    const doc = this.#cache.peek<unknown>(scope.tenant, name, variantOf(scope, 'full'))?.value as PackageDocument | undefined;
    // Still published with the same bytes (a tenant deleted and made again may reuse the name).
    return doc?.versions[hit.version]?.dist.integrity === hit.integrity ? hit : undefined;
  }

  async #cached(scope: ReadScope, name: string, form: DocumentForm): Promise<CachedValue<unknown>> {
    const found = await this.#cache.get(scope.tenant, name, variantOf(scope, form), async () => {
      const stored = await this.#deps.packages.package(scope.tenant, name).read();
      if (!stored || stored.unpublished) return undefined;
      return build(stored, scope.tarballBaseUrl, form);
    });
    if (!found) throw packageNotFound(name);
    return found;
  }
}

/** Which blob holds `fileName` of a version in `doc`, or 404 NOT_FOUND. */
function locateFile(
  scope: ReadScope,
  name: string,
  fileName: string,
  doc: PackageDocument,
): { version: string; kind: 'tarball' | 'sigstore'; key: string; etag: string; integrity: string } {
  const parsed = parseFileName(name, fileName);
  const record = parsed === undefined ? undefined : doc.versions[parsed.version];
  if (!parsed || !record) throw fileNotFound(name, fileName);
  const { version, kind } = parsed;
  // A version cached from an upstream may carry only a shasum.
  const integrity = record.dist.integrity ?? record.dist.shasum;
  return kind === 'tarball'
    ? { version, kind, key: blobKeyFor(scope.tenant, name, version), etag: tarballEtag(record), integrity }
    : { version, kind, key: sigstoreKeyFor(scope.tenant, name, version), etag: `"sigstore-${integrity}"`, integrity };
}

/** A tarball's strong validator: its version's integrity (a version cached from an upstream may carry only a shasum). */
export function tarballEtag(record: VersionRecord): string {
  return `"${record.dist.integrity ?? record.dist.shasum}"`;
}

function variantOf(scope: ReadScope, form: DocumentForm): string {
  return `${form}\0${scope.tarballBaseUrl}`;
}

function build(stored: StoredPackage, tarballBaseUrl: string, form: DocumentForm): CachedValue<unknown> {
  const doc = stored.document;
  const modified = doc.time.modified ? new Date(doc.time.modified) : undefined;
  if (form === 'abbreviated') {
    const value = renderAbbreviated(doc, tarballBaseUrl);
    // Only its bytes are kept.
    return { representation: Representation.json(value, ABBREVIATED_ACCEPT, modified), value, keepValue: false };
  }
  const value = renderFull(doc, tarballBaseUrl);
  // Version and file lookups read the full form's object: most full forms are built for them
  // (a tarball request), so the bytes are made only when a client asks for the document itself,
  // when the store told the size to count them by until then.
  const jsonBytes = stored.documentBytes;
  const representation =
    jsonBytes === undefined ? Representation.json(value, JSON_TYPE, modified) : Representation.later(value, JSON_TYPE, modified);
  return { representation, value, keepValue: true, ...(jsonBytes === undefined ? {} : { jsonBytes }) };
}

function visible(stored: StoredPackage | undefined, name: string): StoredPackage {
  if (!stored || stored.unpublished) throw packageNotFound(name);
  return stored;
}

/** Exact version first, then dist-tag, then the highest version a semver range accepts. */
export function resolveVersion(doc: PackageDocument, spec: string): string | undefined {
  if (Object.hasOwn(doc.versions, spec)) return spec;
  const tagged = Object.hasOwn(doc['dist-tags'], spec) ? doc['dist-tags'][spec] : undefined;
  if (tagged !== undefined) return tagged;
  if (spec.length <= 256 && semver.validRange(spec) !== null) {
    return semver.maxSatisfying(Object.keys(doc.versions), spec) ?? undefined;
  }
  return undefined;
}

/** `<name>-<version>.tgz` or `<name>-<version>.sigstore`, with a strict semver version. */
export function parseFileName(name: string, fileName: string): { version: string; kind: 'tarball' | 'sigstore' } | undefined {
  if (!fileName.startsWith(`${name}-`)) return undefined;
  const rest = fileName.slice(name.length + 1);
  for (const [suffix, kind] of [
    ['.tgz', 'tarball'],
    ['.sigstore', 'sigstore'],
  ] as const) {
    if (!rest.endsWith(suffix)) continue;
    const version = rest.slice(0, -suffix.length);
    return semver.valid(version) === version ? { version, kind } : undefined;
  }
  return undefined;
}
