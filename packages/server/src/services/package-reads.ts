import { configuredTarballBaseUrl } from '../config/public-url.js';
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
import type { ByteRange, RenderOrPackage, RenderStore, StoredPackage, TenantId } from '../storage/ports.js';
import { BudgetLru } from '../storage/budget-lru.js';
import type { CachedValue, DocumentCache } from './document-cache.js';
import { renderAbbreviated, renderFull, renderVersion, type DocumentForm } from './package-document.js';
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
export type PackageReadServiceDeps = Pick<ServerDeps, 'config' | 'packages' | 'blobs' | 'renders'>;

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
  readonly #tarballs: BudgetLru<CachedFile>;

  readonly #scopeOf: TenantScopeOf;
  #rendersRead = 0;
  #rendered = 0;
  /**
   * The tarball base URL whose renders this process reads and keeps, per registry: the first it
   * answered a document for (with a configured public URL, the only one). One base URL only, so
   * that a Host header cannot make the store write on every read; a restart under another
   * address replaces the old renders as their packages are read.
   */
  readonly #renderBaseUrls = new Map<TenantId, string>();
  /** Renders being kept (their writes not finished). */
  #keeping = 0;

  constructor(deps: PackageReadServiceDeps, cache: DocumentCache, scopeOf: TenantScopeOf = singleIncarnation) {
    this.#deps = deps;
    this.#cache = cache;
    this.#scopeOf = scopeOf;
    this.#tarballs = new BudgetLru(deps.config.tarballCache);
  }

  /**
   * Document cache misses since start: answered from a render the store kept, and rendered from
   * the package (then kept, where the store keeps renders).
   */
  get renderStats(): { read: number; rendered: number } {
    return { read: this.#rendersRead, rendered: this.#rendered };
  }

  /** The serialized document in `form`, from the cache when it is there. */
  async document(scope: ReadScope, name: string, form: DocumentForm): Promise<Representation> {
    const found = await this.#cache.get(scope.tenant, name, variantOf(scope, form), () => this.#buildDocument(scope, name, form));
    if (!found?.representation) throw packageNotFound(name);
    return found.representation;
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
    return documentRepresentation(stored, scope.tarballBaseUrl, 'full');
  }

  /** A version record by exact version, dist-tag or semver range (highest match). */
  async version(scope: ReadScope, name: string, spec: string): Promise<VersionRecord> {
    const found = await this.#cache.get(scope.tenant, name, RECORDS_VARIANT, async () => {
      const stored = await this.#deps.packages.package(scope.tenant, name).read();
      if (!stored || stored.unpublished) return undefined;
      const doc = stored.document;
      return { value: doc, jsonBytes: stored.documentBytes ?? JSON.stringify(doc).length };
    });
    const doc = found?.value;
    if (!doc) throw packageNotFound(name);
    const version = resolveVersion(doc, spec);
    const record = version === undefined ? undefined : doc.versions[version];
    if (!record) throw versionNotFound(name, spec);
    return renderVersion(record, scope.tarballBaseUrl);
  }

  /**
   * A file of a published version: `<name>-<version>.tgz`, or the `.sigstore` bundle kept from
   * its publish. Any other file name, or a version that is not published, is 404.
   */
  async file(scope: ReadScope, name: string, fileName: string): Promise<TarballFile> {
    const found = await this.#cache.get(scope.tenant, name, FILES_VARIANT, () => this.#buildFileIndex(scope, name));
    const index = found?.value;
    if (!index) throw packageNotFound(name);
    const { version, kind, key, etag, integrity } = locateFile(scope, name, fileName, index);
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
      if (kind === 'tarball') this.#tarballs.set(`${this.#scopeOf(scope.tenant)}\0${name}\0${fileName}`, file, bytes.length);
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
    const integrity = integrityOf(record);
    const open = async () => bytes;
    const file: CachedFile = {
      version,
      kind: 'tarball',
      size: bytes.length,
      etag: tarballEtag(record),
      streamed: false,
      open,
      bytes,
      integrity,
    };
    this.#tarballs.set(`${this.#scopeOf(tenant)}\0${name}\0${name}-${version}.tgz`, file, bytes.length);
  }

  /**
   * A tarball the caches hold whole (its package's file index and its bytes), for an answer
   * without a promise; undefined when only `file` can tell.
   */
  cachedFile(scope: ReadScope, name: string, fileName: string): CachedFile | undefined {
    const hit = this.#tarballs.get(`${this.#scopeOf(scope.tenant)}\0${name}\0${fileName}`);
    if (hit === undefined) return undefined;
    const index = this.#cache.peek<FileIndex>(scope.tenant, name, FILES_VARIANT)?.value;
    // Still published with the same bytes (a tenant deleted and made again may reuse the name).
    return index?.[hit.version] === hit.integrity ? hit : undefined;
  }

  /**
   * A miss of the document cache: the render the store kept, else the document rendered from
   * the package read now (and kept for the next miss, where the store keeps renders).
   */
  async #buildDocument(scope: ReadScope, name: string, form: DocumentForm): Promise<CachedValue<unknown> | undefined> {
    const renders = this.#rendersOf(scope);
    // One read either way: a package never read since its last write is not a second trip.
    const read: RenderOrPackage | undefined =
      renders !== undefined
        ? await renders.readRenderOrPackage(scope.tenant, name, form, scope.tarballBaseUrl)
        : await this.#deps.packages
            .package(scope.tenant, name)
            .read()
            .then((stored) => stored && { package: stored });
    if (read?.render !== undefined) {
      this.#rendersRead++;
      return { representation: Representation.stored(read.render, contentTypeOf(form)), value: undefined };
    }
    const stored = read?.package;
    if (!stored || stored.unpublished) return undefined;
    this.#rendered++;
    const representation = documentRepresentation(stored, scope.tarballBaseUrl, form);
    if (renders !== undefined) this.#keep(renders, scope, name, stored, form, representation);
    return { representation, value: undefined };
  }

  /**
   * After this process wrote a package: renders its forms for the base URL this process keeps
   * renders of in its registry, and keeps them, so that the first read of the package on any
   * node is one row (a long tail's packages are read rarely, and often first long after their
   * publish). Not waited for by the write's answer. Nothing when the store keeps no renders, or
   * when this process does not know the registry's address: no `publicUrl` configured, and no
   * document of the registry answered yet.
   */
  renderWritten(tenant: TenantId, name: string): void {
    const renders = this.#deps.renders;
    const tarballBaseUrl = this.#renderBaseUrls.get(tenant) ?? configuredTarballBaseUrl(this.#deps.config, tenant);
    if (renders === undefined || tarballBaseUrl === undefined || this.#keeping >= MAX_KEEPS_IN_FLIGHT) return;
    // The read counts against the bound until it has answered; then each form's keep does.
    this.#keeping++;
    void this.#deps.packages
      .package(tenant, name)
      .read()
      .then(
        (stored) => {
          this.#keeping--;
          if (!stored || stored.unpublished || stored.revision === undefined) return;
          for (const form of DOCUMENT_FORMS) {
            const representation = documentRepresentation(stored, tarballBaseUrl, form);
            this.#keep(renders, { tenant, tarballBaseUrl }, name, stored, form, representation);
          }
        },
        () => this.#keeping--,
      )
      .catch(() => undefined);
  }

  /** Keeps a render made from `stored` (at its revision), not waited for. */
  #keep(
    renders: RenderStore,
    scope: ReadScope,
    name: string,
    stored: StoredPackage,
    form: DocumentForm,
    representation: Representation,
  ): void {
    // A flood of first reads must not queue a write each (and hold each body until then): past
    // the bound, a render is not kept, and a later miss of the same package keeps it.
    if (stored.revision === undefined || this.#keeping >= MAX_KEEPS_IN_FLIGHT) return;
    const { tenant, tarballBaseUrl: baseUrl } = scope;
    const revision = stored.revision;
    this.#keeping++;
    // Not waited for: the answer does not depend on it. A render not kept (the package written
    // meanwhile, the database busy or read-only) costs the next miss a render, nothing more.
    void representation
      .storable()
      .then((parts) => renders.keepRender(tenant, name, revision, { form, baseUrl, ...parts }))
      .catch(() => undefined)
      .finally(() => this.#keeping--);
  }

  /** The render store, for the base URL this process keeps renders of (#renderBaseUrls). */
  #rendersOf(scope: ReadScope): RenderStore | undefined {
    const renders = this.#deps.renders;
    if (renders === undefined) return undefined;
    let baseUrl = this.#renderBaseUrls.get(scope.tenant);
    if (baseUrl === undefined) this.#renderBaseUrls.set(scope.tenant, (baseUrl = scope.tarballBaseUrl));
    return baseUrl === scope.tarballBaseUrl ? renders : undefined;
  }

  /** A miss of a package's file index: the package read now. */
  async #buildFileIndex(scope: ReadScope, name: string): Promise<CachedValue<FileIndex> | undefined> {
    const stored = await this.#deps.packages.package(scope.tenant, name).read();
    if (!stored || stored.unpublished) return undefined;
    const index: Record<string, string> = Object.create(null) as Record<string, string>;
    let bytes = 0;
    for (const [version, record] of Object.entries(stored.document.versions)) {
      const integrity = integrityOf(record);
      index[version] = integrity;
      bytes += version.length + integrity.length + FILE_INDEX_ENTRY_BYTES;
    }
    return { value: index, jsonBytes: bytes };
  }
}

/**
 * Each version's integrity (a version cached from an upstream may carry only a shasum): all a
 * tarball request needs of its package, a small fraction of the document's room in the cache.
 */
type FileIndex = Readonly<Record<string, string>>;

/** Renders kept at once at most (writes to the metadata database not finished yet). */
export const MAX_KEEPS_IN_FLIGHT = 8;

/** The forms a write renders ahead of its first read. */
const DOCUMENT_FORMS: readonly DocumentForm[] = ['abbreviated', 'full'];

/** The document cache's variant of a package's file index (the same for every base URL). */
const FILES_VARIANT = 'files';
/** The document cache's variant of a package's stored document, for version lookups. */
const RECORDS_VARIANT = 'records';
/** Room of a file index entry besides its two strings (the property, the JSON's quotes). */
const FILE_INDEX_ENTRY_BYTES = 8;

/** Which blob holds `fileName` of a version in `index`, or 404 NOT_FOUND. */
function locateFile(
  scope: ReadScope,
  name: string,
  fileName: string,
  index: FileIndex,
): { version: string; kind: 'tarball' | 'sigstore'; key: string; etag: string; integrity: string } {
  const parsed = parseFileName(name, fileName);
  const integrity = parsed === undefined ? undefined : index[parsed.version];
  if (!parsed || integrity === undefined) throw fileNotFound(name, fileName);
  const { version, kind } = parsed;
  return kind === 'tarball'
    ? { version, kind, key: blobKeyFor(scope.tenant, name, version), etag: `"${integrity}"`, integrity }
    : { version, kind, key: sigstoreKeyFor(scope.tenant, name, version), etag: `"sigstore-${integrity}"`, integrity };
}

/** A version's integrity, or its shasum when it carries only that (cached from an upstream). */
function integrityOf(record: VersionRecord): string {
  return record.dist.integrity ?? record.dist.shasum;
}

/** A tarball's strong validator: its version's integrity (a version cached from an upstream may carry only a shasum). */
export function tarballEtag(record: VersionRecord): string {
  return `"${integrityOf(record)}"`;
}

function variantOf(scope: ReadScope, form: DocumentForm): string {
  return `${form}\0${scope.tarballBaseUrl}`;
}

/** A form of a stored package as answered, for `tarballBaseUrl` (also what the bench's seeder keeps as renders). */
export function documentRepresentation(stored: StoredPackage, tarballBaseUrl: string, form: DocumentForm): Representation {
  const doc = stored.document;
  const modified = doc.time.modified ? new Date(doc.time.modified) : undefined;
  const value = form === 'abbreviated' ? renderAbbreviated(doc, tarballBaseUrl) : renderFull(doc, tarballBaseUrl);
  return Representation.json(value, contentTypeOf(form), modified);
}

function contentTypeOf(form: DocumentForm): string {
  return form === 'abbreviated' ? ABBREVIATED_ACCEPT : JSON_TYPE;
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
