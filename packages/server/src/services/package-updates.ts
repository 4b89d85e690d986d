import { ProtocolError, type PackageDocument, type Person, packageNotFound, fileNotFound, userNotFound } from '@pkg/protocol';
import type { Caller } from '../context.js';
import type { ServerDeps } from '../deps.js';
import { blobKeysOfVersion } from '../storage/blob-keys.js';
import type { StoredPackage, TenantId } from '../storage/ports.js';
import { isObject } from './json-shapes.js';
import { requireMaintainer } from './maintainers.js';
import { mirrorLatestFields, repairDistTags } from './package-fields.js';
import { parseFileName } from './package-reads.js';
import { nextRevision } from './revisions.js';

/** What an edit of a package document (npm deprecate, owner, unpublish) asks for. */
interface UpdatePlan {
  /** Maintainer names in the order sent, when `maintainers` was sent. */
  maintainers: string[] | undefined;
  /** Version → deprecation message (`''` removes it), for versions that carry `deprecated`. */
  deprecations: Map<string, string>;
  /** Versions the body lists, when it has `versions`. */
  listedVersions: Set<string> | undefined;
}

export interface UpdateOptions {
  /** The revision the client edited (`PUT /<name>/-rev/<rev>`). */
  rev: string | undefined;
  /**
   * Versions missing from the body are unpublished (npm's unpublish of one version). Only the
   * `-rev` form allows it, and only when `rev` is the current revision: a stale document must
   * never unpublish a version published after it was read.
   */
  allowRemoval: boolean;
}

export interface UpdateResult {
  rev: string;
  /** What the edit changed (the audit log and webhooks record each). */
  changes: PackageChanges;
}

/** What one edit of a package document changed. */
export interface PackageChanges {
  ownersAdded: string[];
  ownersRemoved: string[];
  deprecated: string[];
  undeprecated: string[];
  /** Versions unpublished; every version when `wholePackage`. */
  unpublished: string[];
  wholePackage: boolean;
}

function noChanges(): PackageChanges {
  return { ownersAdded: [], ownersRemoved: [], deprecated: [], undeprecated: [], unpublished: [], wholePackage: false };
}

const MAX_DEPRECATION_LENGTH = 1024;

/** What PackageUpdateService reaches of the server's deps. */
export type PackageUpdateServiceDeps = Pick<ServerDeps, 'packages' | 'registry' | 'blobs' | 'bus' | 'now'>;

/**
 * Changes to an existing package besides publishing: deprecation messages, owners, unpublishing
 * versions or the whole package. Only maintainers may make them. Every other field of a version
 * is immutable and ignored when a client sends it back.
 */
export class PackageUpdateService {
  readonly #deps: PackageUpdateServiceDeps;

  constructor(deps: PackageUpdateServiceDeps) {
    this.#deps = deps;
  }

  /** Applies npm's edited document (`PUT /<name>` or `PUT /<name>/-rev/<rev>`). */
  async update(tenant: TenantId, caller: Caller, name: string, body: unknown, options: UpdateOptions): Promise<UpdateResult> {
    const plan = parseUpdateBody(name, body);
    let removed: string[] = [];
    const result = await this.#deps.packages.package(tenant, name).update(async (current) => {
      const stored = existing(current, name);
      requireMaintainer(stored, caller.user, name);
      let doc = stored.document;
      let changed = false;
      const changes = noChanges();

      if (plan.maintainers) {
        const maintainers = await this.#nextMaintainers(tenant, doc.maintainers, plan.maintainers);
        if (maintainers) {
          const before = new Set(doc.maintainers.map((m) => m.name));
          const after = new Set(maintainers.map((m) => m.name));
          changes.ownersAdded = [...after].filter((n) => !before.has(n));
          changes.ownersRemoved = [...before].filter((n) => !after.has(n));
          doc = { ...doc, maintainers };
          changed = true;
        }
      }

      const deprecated = applyDeprecations(doc, plan.deprecations);
      if (deprecated) {
        for (const version of Object.keys(deprecated.versions)) {
          const was = doc.versions[version]?.deprecated;
          const now = deprecated.versions[version]?.deprecated;
          if (was === now) continue;
          if (now === undefined) changes.undeprecated.push(version);
          else changes.deprecated.push(version);
        }
        doc = deprecated;
        changed = true;
      }

      removed = [];
      if (options.allowRemoval && plan.listedVersions) {
        const listed = plan.listedVersions;
        removed = Object.keys(doc.versions).filter((v) => !listed.has(v));
        if (removed.length > 0) {
          if (options.rev !== doc._rev) throw staleRevision(name);
          changes.unpublished = removed;
          if (removed.length === Object.keys(doc.versions).length) {
            const next = tombstone(stored, this.#now());
            return { next, result: { rev: next.document._rev, changes: { ...changes, wholePackage: true } } };
          }
          const versions = { ...doc.versions };
          for (const version of removed) delete versions[version];
          doc = { ...doc, versions };
          doc = { ...doc, 'dist-tags': repairDistTags(doc) };
          doc = mirrorLatestFields(doc);
          changed = true;
        }
      }

      if (!changed) return { next: null, result: { rev: doc._rev, changes } };
      doc = { ...doc, time: { ...doc.time, modified: this.#now() } };
      doc._rev = nextRevision(stored.document._rev, doc);
      return { next: { ...stored, document: doc }, result: { rev: doc._rev, changes } };
    });
    await this.#afterWrite(tenant, name, removed);
    return result;
  }

  /** `DELETE /<name>/-rev/<rev>`: unpublishes every version and leaves a tombstone; returns the versions removed. */
  async unpublishPackage(tenant: TenantId, caller: Caller, name: string, rev: string): Promise<string[]> {
    let removed: string[] = [];
    await this.#deps.packages.package(tenant, name).update((current) => {
      const stored = existing(current, name);
      requireMaintainer(stored, caller.user, name);
      if (rev !== stored.document._rev) throw staleRevision(name);
      removed = Object.keys(stored.document.versions);
      return { next: tombstone(stored, this.#now()), result: undefined };
    });
    await this.#afterWrite(tenant, name, removed);
    return removed;
  }

  /**
   * `DELETE /<name>/-/<file>/-rev/<rev>`, npm's second step of unpublishing a version: removes
   * the file of a version that is no longer in the document. `rev` must be the current
   * revision, as for every revisioned write (npm reads the document again right before). A
   * version still published is 409.
   */
  async deleteFile(tenant: TenantId, caller: Caller, name: string, fileName: string, rev: string): Promise<void> {
    const parsed = parseFileName(name, fileName);
    const stored = await this.#deps.packages.package(tenant, name).read();
    if (!parsed || !stored) throw fileNotFound(name, fileName);
    requireMaintainer(stored, caller.user, name);
    if (rev !== stored.document._rev) throw staleRevision(name);
    if (!stored.unpublished && Object.hasOwn(stored.document.versions, parsed.version)) {
      throw new ProtocolError(
        'CONFLICT',
        `${name}@${parsed.version} is still published: remove it from the document (PUT /${name}/-rev/<rev>) first`,
      );
    }
    if (!stored.publishedVersions.includes(parsed.version)) {
      throw fileNotFound(name, fileName);
    }
    await this.#deleteBlobs(tenant, name, [parsed.version]);
  }

  /** New maintainer list, or undefined when it names the same people. */
  async #nextMaintainers(tenant: TenantId, current: Person[], names: string[]): Promise<Person[] | undefined> {
    const unique = [...new Set(names)];
    const currentNames = new Set(current.map((m) => m.name));
    if (unique.length === currentNames.size && unique.every((n) => currentNames.has(n))) return undefined;
    if (unique.length === 0) {
      throw new ProtocolError('VALIDATION_ERROR', 'A package must keep at least one owner: add someone else first');
    }
    const maintainers: Person[] = [];
    for (const name of unique) {
      const kept = current.find((m) => m.name === name);
      if (kept) {
        maintainers.push(kept);
        continue;
      }
      const user = await this.#deps.registry.users.get(tenant, name);
      if (!user || user.disabled) throw userNotFound(name);
      maintainers.push({ name: user.name, email: user.email });
    }
    return maintainers;
  }

  async #afterWrite(tenant: TenantId, name: string, removedVersions: string[]): Promise<void> {
    await this.#deps.bus.publish(tenant, name);
    // After the commit: a crash before this point leaves orphans that start-up collects.
    await this.#deleteBlobs(tenant, name, removedVersions);
  }

  async #deleteBlobs(tenant: TenantId, name: string, versions: string[]): Promise<void> {
    for (const version of versions) {
      for (const key of blobKeysOfVersion(tenant, name, version)) await this.#deps.blobs.delete(key);
    }
  }

  #now(): string {
    return this.#deps.now().toISOString();
  }
}

function parseUpdateBody(name: string, body: unknown): UpdatePlan {
  if (!isObject(body)) throw badRequest('the body must be a JSON object');
  for (const field of ['name', '_id'] as const) {
    if (body[field] !== undefined && body[field] !== name) {
      throw badRequest(`'${field}' in the body does not match the package name in the URL`);
    }
  }
  let maintainers: string[] | undefined;
  if (body.maintainers !== undefined) {
    if (!Array.isArray(body.maintainers)) throw badRequest("'maintainers' must be an array");
    maintainers = body.maintainers.map((m: unknown) => {
      if (!isObject(m) || typeof m.name !== 'string' || m.name.length === 0) {
        throw badRequest("each entry of 'maintainers' must be an object with a 'name' string");
      }
      return m.name;
    });
  }
  const deprecations = new Map<string, string>();
  let listedVersions: Set<string> | undefined;
  if (body.versions !== undefined) {
    if (!isObject(body.versions)) throw badRequest("'versions' must be an object");
    listedVersions = new Set(Object.keys(body.versions));
    for (const [version, record] of Object.entries(body.versions)) {
      if (!isObject(record)) throw badRequest(`versions['${version.slice(0, 40)}'] must be an object`);
      if (record.deprecated === undefined) continue;
      if (typeof record.deprecated !== 'string')
        throw badRequest(`versions['${version.slice(0, 40)}'].deprecated must be a string`);
      if (record.deprecated.length > MAX_DEPRECATION_LENGTH) {
        throw new ProtocolError('VALIDATION_ERROR', `a deprecation message is at most ${MAX_DEPRECATION_LENGTH} characters`);
      }
      deprecations.set(version, record.deprecated);
    }
  }
  return { maintainers, deprecations, listedVersions };
}

/** The document with the deprecations applied, or undefined when none changes anything. */
function applyDeprecations(doc: PackageDocument, deprecations: Map<string, string>): PackageDocument | undefined {
  let versions: PackageDocument['versions'] | undefined;
  for (const [version, message] of deprecations) {
    const record = doc.versions[version];
    if (!record) continue;
    if (message === '' ? record.deprecated === undefined : record.deprecated === message) continue;
    versions ??= { ...doc.versions };
    const next = { ...record };
    if (message === '') delete next.deprecated;
    else next.deprecated = message;
    versions[version] = next;
  }
  return versions ? { ...doc, versions } : undefined;
}

/**
 * What remains of a package unpublished as a whole: reads answer 404, the maintainers keep the
 * name, and `publishedVersions` keeps every version number from being used again.
 */
function tombstone(stored: StoredPackage, now: string): StoredPackage {
  const doc = stored.document;
  const next: PackageDocument = {
    _id: doc._id,
    _rev: '',
    name: doc.name,
    'dist-tags': {},
    versions: {},
    time: { ...doc.time, modified: now, unpublished: now },
    maintainers: doc.maintainers,
  };
  next._rev = nextRevision(doc._rev, next);
  return { document: next, publishedVersions: stored.publishedVersions, unpublished: true };
}

function existing(current: StoredPackage | undefined, name: string): StoredPackage {
  if (!current || current.unpublished) throw packageNotFound(name);
  return current;
}

function staleRevision(name: string): ProtocolError {
  return new ProtocolError('CONFLICT', `The document of '${name}' changed since it was read: read it again and retry`);
}

function badRequest(details: string): ProtocolError {
  return new ProtocolError('BAD_REQUEST', details);
}
