import {
  ProtocolError,
  payloadTooLarge,
  dependencyFieldsProblem,
  isSemver,
  isUnityMinVersion,
  isUnityRelease,
  minorEngineFieldProblem,
} from '@pkg/protocol';
import { checkTagName } from './dist-tag-rules.js';
import { isObject } from './json-shapes.js';
import type { DigestAlgorithm, ReceivedTarball } from './tarball-intake.js';

/** A publish body, checked: one version, its tarball bytes and the tags to point at it. */
export interface PublishRequest {
  name: string;
  version: string;
  /** The version's package.json as the client sent it (its `dist` is rebuilt by the server). */
  manifest: Record<string, unknown>;
  /** The tarball as streamed out of the body: its upload is committed when the version is. */
  tarball: ReceivedTarball;
  /** `sha512-<base64>` of the tarball bytes. */
  integrity: string;
  /** sha1 hex of the tarball bytes (npm's legacy `dist.shasum`). */
  shasum: string;
  /** Tags of the body that point at this version. */
  tags: string[];
  /**
   * Versions of the body besides the attached one, and the versions its other tags name: each
   * must be published already (see checkAgainstStored).
   */
  otherVersions: string[];
  otherTagTargets: Map<string, string>;
  readme: string | undefined;
  readmeFilename: string | undefined;
  /** The `.sigstore` provenance attachment, kept as it came. */
  sigstore: Buffer | undefined;
}

export interface PublishLimits {
  maxTarballSize: number;
}

const MAX_SIGSTORE_SIZE = 1024 * 1024;
const MAX_README_SIZE = 1024 * 1024;

/** True when a `PUT /<name>` body carries attachments, i.e. is a publish rather than an edit. */
export function isPublishBody(body: unknown): boolean {
  if (!isObject(body)) return false;
  const attachments = body._attachments;
  return attachments !== undefined && attachments !== null && !(isObject(attachments) && Object.keys(attachments).length === 0);
}

/**
 * Checks npm's publish body (`_attachments` with base64 `data` and `length`, `versions`,
 * `dist-tags`): wrong shapes are 400, broken rules 422, an oversized tarball 413. The body may
 * hold more versions than the attached one only when those are published already (npm's retry
 * after a 409 sends the stored document with the new version merged in); checkAgainstStored
 * tells, under the package's lock. Only the attached version is published. The tarballs' bytes
 * were streamed out of the body as it was read (publish-body-receiver.ts): `tarballs` tells what
 * they were.
 */
export function parsePublishBody(
  name: string,
  body: unknown,
  limits: PublishLimits,
  tarballs: ReadonlyMap<string, ReceivedTarball>,
): PublishRequest {
  if (!isObject(body)) throw badRequest('the publish body must be a JSON object');
  for (const field of ['name', '_id'] as const) {
    if (body[field] !== undefined && body[field] !== name) {
      throw badRequest(`'${field}' in the body does not match the package name in the URL`);
    }
  }
  const attachments = body._attachments;
  if (!isObject(attachments)) throw badRequest("'_attachments' must be an object");

  let tarballEntry: [string, unknown] | undefined;
  let sigstoreEntry: [string, unknown] | undefined;
  for (const entry of Object.entries(attachments)) {
    if (entry[0].endsWith('.tgz')) {
      if (tarballEntry) throw invalid('a publish carries exactly one tarball attachment');
      tarballEntry = entry;
    } else if (entry[0].endsWith('.sigstore')) {
      if (sigstoreEntry) throw invalid('a publish carries at most one .sigstore attachment');
      sigstoreEntry = entry;
    } else {
      throw invalid(`unexpected attachment '${short(entry[0])}': only <name>-<version>.tgz and .sigstore are accepted`);
    }
  }
  if (!tarballEntry) throw invalid('the publish body has no tarball attachment (<name>-<version>.tgz)');

  const [fileName, attachment] = tarballEntry;
  const prefix = `${name}-`;
  const version = fileName.startsWith(prefix) ? fileName.slice(prefix.length, -'.tgz'.length) : '';
  if (!isSemver(version)) {
    throw invalid(`the attachment '${short(fileName)}' must be named ${name}-<version>.tgz with a valid semver version`);
  }
  const versions = body.versions;
  if (!isObject(versions)) throw badRequest("'versions' must be an object");
  const manifest = versions[version];
  if (!isObject(manifest)) throw invalid(`'versions' has no record for the attached version ${version}`);
  checkManifest(name, version, manifest);

  if (sigstoreEntry && sigstoreEntry[0] !== `${name}-${version}.sigstore`) {
    throw invalid(`the provenance attachment must be named ${name}-${version}.sigstore`);
  }

  const tarball = checkAttachment(attachment, tarballs.get(fileName), limits);
  const integrity = tarball.digests.sha512!;
  const shasum = Buffer.from(tarball.digests.sha1!.slice('sha1-'.length), 'base64').toString('hex');
  checkDigests(manifest.dist, tarball.digests, shasum);

  const { tags, others: otherTagTargets } = tagsFor(body['dist-tags'], version);
  const otherVersions = Object.keys(versions).filter((v) => v !== version);
  const readme = pickString(manifest.readme, body.readme, 'readme');
  if (readme !== undefined && readme.length > MAX_README_SIZE) throw invalid('the readme is larger than 1 MiB');
  return {
    name,
    version,
    manifest,
    tarball,
    integrity,
    shasum,
    tags,
    otherVersions,
    otherTagTargets,
    readme,
    readmeFilename: pickString(manifest.readmeFilename, body.readmeFilename, 'readmeFilename'),
    sigstore: sigstoreEntry ? decodeSigstore(sigstoreEntry[1]) : undefined,
  };
}

/**
 * The rules that need the stored package: a publish adds exactly one version, so every other
 * version the body lists, and every version another of its dist-tags names, must be published
 * already (and is left as stored: tags move through the dist-tag routes, not a publish).
 * A document that would silently drop a version or a tag is refused instead.
 */
export function checkAgainstStored(request: PublishRequest, publishedVersions: ReadonlySet<string>): void {
  const unknown = request.otherVersions.filter((v) => !publishedVersions.has(v));
  if (unknown.length > 0) {
    throw invalid(
      `a publish carries exactly one new version (${request.version}), but 'versions' also lists ${listOf(unknown)}, not published`,
    );
  }
  for (const [tag, target] of request.otherTagTargets) {
    if (!publishedVersions.has(target)) {
      throw invalid(
        `dist-tag '${short(tag)}' names ${short(target)}, which is neither the published version ${request.version} nor an earlier one`,
      );
    }
  }
}

function listOf(versions: string[]): string {
  const shown = versions.slice(0, 3).map((v) => short(v));
  return versions.length > 3 ? `${shown.join(', ')} and ${versions.length - 3} more` : shown.join(', ');
}

function checkManifest(name: string, version: string, manifest: Record<string, unknown>): void {
  if (manifest.name !== name) throw invalid(`versions['${version}'].name must be '${name}'`);
  if (manifest.version !== version) throw invalid(`versions['${version}'].version must be '${version}'`);
  if (manifest.unity !== undefined && !isUnityMinVersion(manifest.unity)) {
    throw invalid(`'unity' must be a minimum editor version of the form <major>.<minor>, e.g. 2021.3`);
  }
  if (manifest.unityRelease !== undefined) {
    if (manifest.unity === undefined) throw invalid(`'unityRelease' needs a 'unity' field`);
    if (!isUnityRelease(manifest.unityRelease)) {
      throw invalid(`'unityRelease' must look like <patch><a|b|f|p><build>, e.g. 0f1`);
    }
  }
  for (const engine of ['godot', 'unreal'] as const) {
    const problem = minorEngineFieldProblem(manifest, engine);
    if (problem) throw invalid(problem);
  }
  const dependencyProblem = dependencyFieldsProblem(manifest);
  if (dependencyProblem) throw invalid(dependencyProblem);
}

function checkAttachment(attachment: unknown, received: ReceivedTarball | undefined, limits: PublishLimits): ReceivedTarball {
  if (!isObject(attachment)) throw badRequest('the tarball attachment must be an object with data and length');
  const { data, length } = attachment;
  if (typeof data !== 'string') throw badRequest("the tarball attachment's 'data' must be a base64 string");
  if (typeof length !== 'number' || !Number.isSafeInteger(length) || length < 0) {
    throw badRequest("the tarball attachment's 'length' must be a non-negative integer");
  }
  const tooLarge = () => payloadTooLarge('tarball', limits.maxTarballSize);
  if (length > limits.maxTarballSize) throw tooLarge();
  // Every tarball's data string was streamed out of the body, leaving "" in its place.
  if (!received || !received.validBase64 || data !== '') throw badRequest("the tarball attachment's 'data' is not valid base64");
  if (received.length > limits.maxTarballSize) throw tooLarge();
  if (received.length !== length) {
    throw invalid(`the attachment's length is ${length} but its data decodes to ${received.length} bytes`);
  }
  if (length === 0) throw invalid('the tarball is empty');
  return received;
}

/**
 * `dist.integrity` (every sha512/sha384/sha256/sha1 hash it lists) and `dist.shasum`, each when
 * present, must match the bytes; a publish that names neither is refused too.
 */
function checkDigests(dist: unknown, digests: Partial<Record<DigestAlgorithm, string>>, sha1Hex: string): void {
  if (dist !== undefined && !isObject(dist)) throw badRequest("'dist' must be an object");
  const integrity = dist?.integrity;
  const shasum = dist?.shasum;
  if (integrity !== undefined && typeof integrity !== 'string') throw badRequest("'dist.integrity' must be a string");
  if (shasum !== undefined && typeof shasum !== 'string') throw badRequest("'dist.shasum' must be a string");
  if (integrity) {
    let checked = 0;
    for (const entry of integrity.trim().split(/\s+/)) {
      const match = /^(sha512|sha384|sha256|sha1)-([A-Za-z0-9+/=]+)(\?.*)?$/.exec(entry);
      if (!match) continue;
      const algorithm = match[1] as DigestAlgorithm;
      const expected = digests[algorithm];
      if (expected === undefined) {
        // Only computed when the document names it before the attachment (npm's order).
        throw invalid(`dist.integrity names ${algorithm}: put the version before _attachments in the body for it to be checked`);
      }
      if (`${algorithm}-${match[2]}` !== expected) {
        throw invalid(`dist.integrity does not match the tarball (${algorithm} differs)`);
      }
      checked++;
    }
    if (checked === 0) throw invalid('dist.integrity names no supported hash (sha512, sha384, sha256, sha1)');
  }
  if (shasum && shasum.toLowerCase() !== sha1Hex) throw invalid('dist.shasum does not match the tarball');
  if (!integrity && !shasum) throw invalid('dist.integrity (or dist.shasum) is required');
}

/** The body's tags naming the attached version, and the others with the versions they name. */
function tagsFor(distTags: unknown, version: string): { tags: string[]; others: Map<string, string> } {
  const tags: string[] = [];
  const others = new Map<string, string>();
  if (distTags === undefined) return { tags, others };
  if (!isObject(distTags)) throw badRequest("'dist-tags' must be an object");
  for (const [tag, target] of Object.entries(distTags)) {
    if (typeof target !== 'string') throw badRequest(`dist-tag '${short(tag)}' must name a version string`);
    checkTagName(tag);
    if (target === version) tags.push(tag);
    else others.set(tag, target);
  }
  return { tags, others };
}

function decodeSigstore(attachment: unknown): Buffer {
  if (!isObject(attachment) || typeof attachment.data !== 'string') {
    throw badRequest("the .sigstore attachment's 'data' must be a string");
  }
  // npm sends the bundle as JSON text, not base64.
  const bytes = Buffer.from(attachment.data, 'utf8');
  if (bytes.length > MAX_SIGSTORE_SIZE) throw invalid('the .sigstore attachment is larger than 1 MiB');
  return bytes;
}

function pickString(first: unknown, second: unknown, field: string): string | undefined {
  for (const value of [first, second]) {
    if (value === undefined || value === null) continue;
    if (typeof value !== 'string') throw badRequest(`'${field}' must be a string`);
    return value;
  }
  return undefined;
}

function badRequest(details: string): ProtocolError {
  return new ProtocolError('BAD_REQUEST', details);
}

function invalid(details: string): ProtocolError {
  return new ProtocolError('VALIDATION_ERROR', details);
}

function short(value: string): string {
  return value.length > 80 ? `${value.slice(0, 80)}…` : value;
}
