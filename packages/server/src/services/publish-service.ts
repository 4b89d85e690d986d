import { ProtocolError, type PackageDocument, type Person, type VersionRecord } from '@pkg/protocol';
import type { Caller } from '../context.js';
import type { ServerDeps } from '../deps.js';
import { blobKeyFor, sigstoreKeyFor } from '../storage/blob-keys.js';
import type { StoredPackage, TenantId } from '../storage/ports.js';
import { tarballPath } from './package-document.js';
import { requireMaintainer } from './maintainers.js';
import { mirrorLatestFields } from './package-fields.js';
import { parsePublishBody, type PublishRequest } from './publish-request.js';
import { nextRevision } from './revisions.js';
import { inspectTarball, type TarballFacts } from './tarball-validation.js';

export interface PublishResult {
  /** False when the same version with the same bytes was already there (an idempotent retry). */
  created: boolean;
  rev: string;
}

/** Fields of the client's manifest the registry owns or keeps elsewhere. */
const SERVER_OWNED_FIELDS = [
  '_id',
  '_rev',
  '_attachments',
  '_npmUser',
  '_hasShrinkwrap',
  'hasInstallScript',
  'readme',
  'readmeFilename',
  'deprecated',
  'dist',
] as const;

/** How much larger than its tarball a package may unpack to before it counts as a zip bomb. */
const MAX_UNPACK_RATIO = 10;

/**
 * Publishing one version: checks the body and the tarball, writes the tarball to the blob store,
 * then commits the document under the package's lock. Only then is the version visible, so a
 * crash leaves either the whole version or an unreferenced blob that start-up removes.
 */
export class PublishService {
  readonly #deps: ServerDeps;

  constructor(deps: ServerDeps) {
    this.#deps = deps;
  }

  async publish(tenant: TenantId, caller: Caller, name: string, body: unknown): Promise<PublishResult> {
    const { config } = this.#deps;
    // Refuse non-maintainers before reading a possibly large tarball; re-checked under the lock.
    requireMaintainer(await this.#deps.metadata.getPackage(tenant, name), caller.user, name);
    const request = parsePublishBody(name, body, { maxTarballSize: config.maxTarballSize });
    const facts = await inspectTarball(request.tarball, { maxUnpackedSize: config.maxTarballSize * MAX_UNPACK_RATIO });
    if (facts.manifest.name !== name || facts.manifest.version !== request.version) {
      throw new ProtocolError(
        'VALIDATION_ERROR',
        `package/package.json in the tarball names ${String(facts.manifest.name)}@${String(facts.manifest.version)}, not ${name}@${request.version}`,
      );
    }
    const user = await this.#deps.metadata.getUser(tenant, caller.user);
    const publisher: Person = { name: caller.user, email: user?.email ?? '' };

    const { metadata, blobs } = this.#deps;
    const blobKey = blobKeyFor(tenant, name, request.version);
    const sigstoreKey = sigstoreKeyFor(tenant, name, request.version);
    let wroteBlobs = false;
    let result: PublishResult;
    try {
      result = await metadata.updatePackage<PublishResult>(tenant, name, async (current) => {
        requireMaintainer(current, caller.user, name);
        if (current?.publishedVersions.includes(request.version)) {
          const existing = current.unpublished ? undefined : current.document.versions[request.version];
          if (existing?.dist.integrity === request.integrity) {
            return { next: null, result: { created: false, rev: current.document._rev } };
          }
          throw new ProtocolError(
            'CONFLICT',
            existing
              ? `${name}@${request.version} is already published with different content; versions are immutable`
              : `${name}@${request.version} was unpublished; a version number can never be used again`,
          );
        }
        // Inside the lock: no other publish of this package can write the same key meanwhile.
        if (!wroteBlobs) {
          await blobs.put(blobKey, request.tarball);
          if (request.sigstore) await blobs.put(sigstoreKey, request.sigstore);
          wroteBlobs = true;
        }
        const next = this.#withVersion(current, name, request, facts, publisher);
        return { next, result: { created: true, rev: next.document._rev } };
      });
    } catch (err) {
      if (wroteBlobs && !(err instanceof ProtocolError)) {
        // The version was not committed: its blobs are orphans (start-up would collect them).
        await blobs.delete(blobKey).catch(() => undefined);
        await blobs.delete(sigstoreKey).catch(() => undefined);
      }
      throw err;
    }
    if (result.created) await this.#deps.bus.publish(tenant, name);
    return result;
  }

  #withVersion(
    current: StoredPackage | undefined,
    name: string,
    request: PublishRequest,
    facts: TarballFacts,
    publisher: Person,
  ): StoredPackage {
    const now = this.#deps.now().toISOString();
    const revived = current?.unpublished === true;
    const previous = current?.document;
    const time: Record<string, string> = { ...(previous?.time ?? {}) };
    delete time.unpublished;
    time.created ??= now;
    time[request.version] = now;
    time.modified = now;

    const base: PackageDocument = previous ?? {
      _id: name,
      _rev: '',
      name,
      'dist-tags': {},
      versions: {},
      time: {},
      maintainers: [publisher],
    };
    const versions = { ...(revived ? {} : base.versions), [request.version]: versionRecord(name, request, facts, publisher) };
    const distTags = { ...(revived ? {} : base['dist-tags']) };
    for (const tag of request.tags) distTags[tag] = request.version;
    distTags.latest ??= request.version;

    let doc: PackageDocument = { ...base, versions, 'dist-tags': distTags, time };
    if (distTags.latest === request.version || doc.readme === undefined) {
      if (request.readme !== undefined) doc.readme = request.readme;
      if (request.readmeFilename !== undefined) doc.readmeFilename = request.readmeFilename;
    }
    doc = mirrorLatestFields(doc);
    doc._rev = nextRevision(previous?._rev, doc);
    return {
      document: doc,
      publishedVersions: [...(current?.publishedVersions ?? []), request.version],
      unpublished: false,
    };
  }
}

function versionRecord(name: string, request: PublishRequest, facts: TarballFacts, publisher: Person): VersionRecord {
  const record: Record<string, unknown> = { ...request.manifest };
  for (const field of SERVER_OWNED_FIELDS) delete record[field];
  const scripts = record.scripts as Record<string, unknown> | undefined;
  const hasInstallScript = Boolean(scripts?.preinstall || scripts?.install || scripts?.postinstall);
  return {
    ...(record as Omit<VersionRecord, 'dist'>),
    name,
    version: request.version,
    _id: `${name}@${request.version}`,
    _npmUser: publisher,
    _hasShrinkwrap: facts.hasShrinkwrap,
    ...(hasInstallScript ? { hasInstallScript: true } : {}),
    dist: {
      integrity: request.integrity,
      shasum: request.shasum,
      tarball: tarballPath(name, request.version),
      fileCount: facts.fileCount,
      unpackedSize: facts.unpackedSize,
    },
  };
}
