import { ProtocolError, isSemver, type PackageDocument, type Person, type VersionRecord } from '@pkg/protocol';
import type { Caller } from '../context.js';
import type { ServerDeps } from '../deps.js';
import { blobKeyFor, sigstoreKeyFor } from '../storage/blob-keys.js';
import { TenantGoneError, type StoredPackage, type TenantId, type UsageLimit } from '../storage/ports.js';
import { QuotaExceededError } from '../storage/storage-usage.js';
import { Quotas } from './quotas.js';
import { attestationsPath, tarballPath } from './package-document.js';
import { requireMaintainer } from './maintainers.js';
import { mirrorLatestFields } from './package-fields.js';
import { checkAgainstStored, parsePublishBody, type PublishRequest } from './publish-request.js';
import { receivePublishBody, type ReceivedDocument } from './publish-body-receiver.js';
import { nextRevision } from './revisions.js';
import type { TarballFacts } from './tarball-validation.js';
import { RegistrySignatures, type RegistrySignature } from './registry-signatures.js';
import { checkProvenance, type ProvenanceFacts } from './provenance.js';
import { unitySignatureFacts } from './unity-signature.js';
import type { TeamService } from './team-service.js';

export interface PublishResult {
  /** False when the same version with the same bytes was already there (an idempotent retry). */
  created: boolean;
  rev: string;
  /** The version published (the attached one). */
  version: string;
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

/** What PublishService reaches of the server's deps. */
export type PublishServiceDeps = Pick<
  ServerDeps,
  'config' | 'packages' | 'registry' | 'blobs' | 'bus' | 'now' | 'signingKeys' | 'usage'
>;

/**
 * Most bytes of a `PUT /<name>` document without its tarballs (readme, versions, a provenance
 * bundle): it is parsed whole, like any JSON body.
 */
export const MAX_DOCUMENT_REST = 16 * 1024 * 1024;

/** Bodies larger than this are read only after the maintainer check (see `receive`). */
const EARLY_CHECK_BYTES = 1024 * 1024;

/**
 * Publishing one version: the body is received as a stream, its tarball written to an upload
 * of the blob store as it arrives (`receive`); then the body and the tarball are checked, the
 * upload committed and the document committed, under the package's lock. Only then is the version visible, so a
 * crash leaves either the whole version or an unreferenced blob that start-up removes.
 */
export class PublishService {
  readonly #deps: PublishServiceDeps;
  readonly #signatures: RegistrySignatures;
  /** Who may publish a new package in a namespace a team owns. */
  readonly #teams: Pick<TeamService, 'requireMayCreate'>;
  readonly #quotas: Quotas;

  constructor(deps: PublishServiceDeps, teams: Pick<TeamService, 'requireMayCreate'>) {
    this.#deps = deps;
    this.#signatures = new RegistrySignatures(deps);
    this.#teams = teams;
    this.#quotas = new Quotas(deps.usage);
  }

  /**
   * Reads a `PUT /<name>` body as it arrives, its tarballs streamed into uncommitted uploads
   * under the keys their file names give: the caller publishes it (or hands an edit on) and then
   * discards it. A body over EARLY_CHECK_BYTES (or of unknown length) is read only for a
   * maintainer (or anybody, for a new package). A tarball past the registry's quota (`quota`)
   * is refused before its first byte is stored, or as soon as its bytes pass what is left.
   */
  async receive(
    tenant: TenantId,
    caller: Caller,
    name: string,
    body: AsyncIterable<Buffer>,
    limits: { bodyLimit: number; declaredLength: number | undefined; quota?: UsageLimit | undefined },
  ): Promise<ReceivedDocument> {
    const { config, packages, blobs } = this.#deps;
    const { bodyLimit, declaredLength } = limits;
    // Checked again under the lock; here it spares reading a large body the answer will refuse.
    // A small one is cheaper to read than the document is to load twice.
    if (declaredLength === undefined || declaredLength > EARLY_CHECK_BYTES) {
      const stored = await packages.package(tenant, name).read();
      requireMaintainer(stored, caller.user, name);
      if (stored === undefined) await this.#teams.requireMayCreate(tenant, caller.user, name);
    }
    return receivePublishBody(body, {
      bodyLimit,
      maxRestBytes: MAX_DOCUMENT_REST,
      limits: { maxTarballSize: config.maxTarballSize, maxUnpackedSize: config.maxTarballSize * MAX_UNPACK_RATIO },
      uploadFor: async (file) => {
        const version = versionOfFile(name, file);
        return isSemver(version) ? blobs.upload(blobKeyFor(tenant, name, version)) : undefined;
      },
      quotaFor: async (file) => {
        if (!limits.quota) return undefined;
        const current = await packages.package(tenant, name).read();
        // A version published already (npm's retry after a 5xx, or a conflict) adds nothing:
        // the publish itself answers it.
        if (current?.publishedVersions.includes(versionOfFile(name, file))) return undefined;
        return this.#quotas.admit(tenant, limits.quota, !current || current.unpublished);
      },
    });
  }

  /**
   * Publishes a received body that carries attachments (isPublishBody). With `quota`, the
   * version is refused (QuotaExceededError, nothing kept) when it would take the registry past it.
   */
  async publish(
    tenant: TenantId,
    caller: Caller,
    name: string,
    received: ReceivedDocument,
    quota?: UsageLimit,
  ): Promise<PublishResult> {
    const { config, packages, blobs } = this.#deps;
    const blobKey = (version: string) => blobKeyFor(tenant, name, version);
    const sigstoreKey = (version: string) => sigstoreKeyFor(tenant, name, version);
    // Checked and inspected once, under the package's lock, after the maintainer check: the
    // stored document is read (and parsed) once per publish, which is what a publish costs
    // for a package of many versions. The mutation may run again after a concurrent writer.
    let checked: Checked | undefined;
    let wroteBlobs: string | undefined;
    let result: PublishResult;
    try {
      result = await packages.package(tenant, name).update<PublishResult>(async (current) => {
        requireMaintainer(current, caller.user, name);
        // A new package only: one that exists keeps its own maintainers, inside a team's namespace too.
        if (current === undefined) await this.#teams.requireMayCreate(tenant, caller.user, name);
        checked ??= await this.#check(tenant, caller, name, received, config.maxTarballSize);
        const { request } = checked;
        if (current?.publishedVersions.includes(request.version)) {
          const existing = current.unpublished ? undefined : current.document.versions[request.version];
          if (existing?.dist.integrity === request.integrity) {
            return { next: null, result: { created: false, rev: current.document._rev, version: request.version } };
          }
          throw new ProtocolError(
            'CONFLICT',
            existing
              ? `${name}@${request.version} is already published with different content; versions are immutable`
              : `${name}@${request.version} was unpublished; a version number can never be used again`,
          );
        }
        checkAgainstStored(request, new Set(current && !current.unpublished ? Object.keys(current.document.versions) : []));
        const usage = { bytes: request.tarball.length + (request.sigstore?.length ?? 0), files: request.sigstore ? 2 : 1 };
        // Inside the lock: no other publish of this package can write the same key meanwhile.
        if (wroteBlobs === undefined) {
          await this.#quotas.check(tenant, quota, usage.bytes, !current || current.unpublished);
          const upload = request.tarball.upload;
          if (!upload) throw new Error(`the upload of ${name}@${request.version} is gone`);
          await upload.commit();
          if (request.sigstore) await blobs.put(sigstoreKey(request.version), request.sigstore);
          wroteBlobs = request.version;
        }
        const next: StoredPackage = {
          ...this.#withVersion(current, name, checked),
          usage: { added: { [request.version]: usage }, ...(quota ? { limit: quota } : {}) },
        };
        return { next, result: { created: true, rev: next.document._rev, version: request.version } };
      });
    } catch (err) {
      if (
        wroteBlobs !== undefined &&
        (!(err instanceof ProtocolError) || err instanceof TenantGoneError || err instanceof QuotaExceededError)
      ) {
        // The version was not committed: its blobs are orphans (start-up would collect them).
        // Of a tenant deleted meanwhile, or a version past the quota, nothing may remain.
        await blobs.delete(blobKey(wroteBlobs)).catch(() => undefined);
        await blobs.delete(sigstoreKey(wroteBlobs)).catch(() => undefined);
      }
      throw err;
    }
    if (result.created) await this.#deps.bus.publish(tenant, name);
    return result;
  }

  /** The publish body and its tarball, checked; the publisher's name and e-mail. */
  async #check(
    tenant: TenantId,
    caller: Caller,
    name: string,
    received: ReceivedDocument,
    maxTarballSize: number,
  ): Promise<Checked> {
    const request = parsePublishBody(name, received.document, { maxTarballSize }, received.tarballs);
    const facts = request.tarball.facts;
    if (facts instanceof ProtocolError) throw facts;
    if (facts.manifest.name !== name || facts.manifest.version !== request.version) {
      throw new ProtocolError(
        'VALIDATION_ERROR',
        `package/package.json in the tarball names ${String(facts.manifest.name)}@${String(facts.manifest.version)}, not ${name}@${request.version}`,
      );
    }
    const email = caller.email ?? (await this.#deps.registry.users.get(tenant, caller.user))?.email ?? '';
    const sha512Hex = Buffer.from(request.integrity.slice('sha512-'.length), 'base64').toString('hex');
    const provenance = request.sigstore ? checkProvenance(request.sigstore, name, request.version, sha512Hex) : undefined;
    const signature = await this.#signatures.sign(tenant, name, request.version, request.integrity);
    return { request, facts, publisher: { name: caller.user, email }, signature, provenance };
  }

  #withVersion(current: StoredPackage | undefined, name: string, checked: Checked): StoredPackage {
    const { request, publisher } = checked;
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
    const versions = {
      ...(revived ? {} : base.versions),
      [request.version]: versionRecord(name, checked),
    };
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

/** The version a tarball attachment's file name gives (`<name>-<version>.tgz`), or ''. */
function versionOfFile(name: string, file: string): string {
  const prefix = `${name}-`;
  return file.startsWith(prefix) && file.endsWith('.tgz') ? file.slice(prefix.length, -'.tgz'.length) : '';
}

/** A publish, checked: the body, the tarball's facts, who publishes, the registry's signature, the provenance. */
interface Checked {
  request: PublishRequest;
  facts: TarballFacts;
  publisher: Person;
  signature: RegistrySignature;
  provenance: ProvenanceFacts | undefined;
}

function versionRecord(name: string, { request, facts, publisher, signature, provenance }: Checked): VersionRecord {
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
      signatures: [signature],
      ...(facts.unitySignature !== undefined ? { unitySignature: unitySignatureFacts(facts.unitySignature) } : {}),
      // Relative like `tarball`: made absolute when the document is rendered.
      ...(provenance
        ? {
            attestations: {
              url: attestationsPath(name, request.version),
              provenance: { predicateType: provenance.predicateType },
            },
          }
        : {}),
    },
  };
}
