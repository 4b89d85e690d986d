import { ProtocolError, isSemver, type DistTags, packageNotFound, versionNotFound } from '@pkg/protocol';
import type { Caller } from '../context.js';
import type { ServerDeps } from '../deps.js';
import type { StoredPackage, TenantId } from '../storage/ports.js';
import { checkTagName } from './dist-tag-rules.js';
import { requireMaintainer } from './maintainers.js';
import { mirrorLatestFields } from './package-fields.js';
import { nextRevision } from './revisions.js';

/** What DistTagService reaches of the server's deps. */
export type DistTagServiceDeps = Pick<ServerDeps, 'packages' | 'bus' | 'now'>;

/** Reading and changing a package's dist-tags (`/-/package/<name>/dist-tags`). */
export class DistTagService {
  readonly #deps: DistTagServiceDeps;

  constructor(deps: DistTagServiceDeps) {
    this.#deps = deps;
  }

  async list(tenant: TenantId, name: string): Promise<DistTags> {
    return existing(await this.#deps.packages.package(tenant, name).read(), name).document['dist-tags'];
  }

  /** Points `tag` at `version`; the version must exist (404) and the tag be valid (422). */
  async set(tenant: TenantId, caller: Caller, name: string, tag: string, version: unknown): Promise<void> {
    if (typeof version !== 'string') throw new ProtocolError('BAD_REQUEST', 'the body must be a JSON string holding a version');
    checkTagName(tag);
    if (!isSemver(version))
      throw new ProtocolError('VALIDATION_ERROR', `'${String(version).slice(0, 80)}' is not a valid semver version`);
    await this.#change(tenant, caller, name, (tags, stored) => {
      if (!Object.hasOwn(stored.document.versions, version)) {
        throw versionNotFound(name, version);
      }
      if (tags[tag] === version) return false;
      tags[tag] = version;
      return true;
    });
  }

  /** Removes `tag`; `latest` cannot be removed (422), an unknown tag is 404. */
  async remove(tenant: TenantId, caller: Caller, name: string, tag: string): Promise<void> {
    if (tag === 'latest')
      throw new ProtocolError('VALIDATION_ERROR', "The 'latest' tag cannot be removed; point it elsewhere instead");
    await this.#change(tenant, caller, name, (tags) => {
      if (!Object.hasOwn(tags, tag))
        throw new ProtocolError('NOT_FOUND', `Dist-tag '${tag.slice(0, 80)}' of '${name}' not found`);
      delete tags[tag];
      return true;
    });
  }

  async #change(
    tenant: TenantId,
    caller: Caller,
    name: string,
    edit: (tags: DistTags, stored: StoredPackage) => boolean,
  ): Promise<void> {
    let changed = false;
    await this.#deps.packages.package(tenant, name).update((current) => {
      const stored = existing(current, name);
      requireMaintainer(stored, caller.user, name);
      const tags = { ...stored.document['dist-tags'] };
      changed = edit(tags, stored);
      if (!changed) return { next: null, result: undefined };
      const now = this.#deps.now().toISOString();
      // Top-level description, license, ... follow `latest`.
      let doc = mirrorLatestFields({ ...stored.document, 'dist-tags': tags, time: { ...stored.document.time, modified: now } });
      doc = { ...doc, _rev: nextRevision(stored.document._rev, doc) };
      return { next: { ...stored, document: doc }, result: undefined };
    });
    if (changed) await this.#deps.bus.publish(tenant, name);
  }
}

function existing(stored: StoredPackage | undefined, name: string): StoredPackage {
  if (!stored || stored.unpublished) throw packageNotFound(name);
  return stored;
}
