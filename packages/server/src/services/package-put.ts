import type { Readable } from 'node:stream';
import { payloadTooLarge, ProtocolError, requestBodyEmpty } from '@pkg/protocol';
import type { Config } from '../config/config.js';
import type { Caller, RequestContext } from '../context.js';
import type { TenantId, UsageLimit } from '../storage/ports.js';
import type { AuditTrail } from './audit-trail.js';
import { publisherOf, packageNameParam, refusePublishOnly } from './caller-rules.js';
import { actorOf, packageChangeNotes, type PackageChangeNote } from './change-records.js';
import type { PackageUpdateService } from './package-updates.js';
import type { ReceivedDocument } from './publish-body-receiver.js';
import { isPublishBody } from './publish-request.js';
import type { PublishService } from './publish-service.js';
import { usageLimitOf } from './quotas.js';
import type { LimitState, RateLimitService } from './rate-limits.js';
import type { SecondFactorService } from './second-factor.js';

const MiB = 1024 * 1024;

/**
 * Most bytes of a body that carries a whole package document: the tarball travels base64 inside
 * the JSON (4/3 of its size), plus room for the document itself.
 */
export function documentBodyLimit(config: Pick<Config, 'maxTarballSize'>): number {
  return Math.ceil((config.maxTarballSize * 4) / 3) + MiB;
}

/** A `PUT /<name>` as the publish route hands it over: what the write needs of the request. */
export interface PackagePut {
  ctx: RequestContext;
  /** The name in the path, not checked yet. */
  name: string | undefined;
  /** The body, not read yet; undefined when the request has none. */
  body: Readable | undefined;
  /** The length the client declared (Content-Length), if it did. */
  declaredLength: number | undefined;
  /** The one-time password the request carries. */
  otp: string | undefined;
  /** The client's address, for the audit log. */
  address: string;
}

export interface PackagePutResult {
  /** True when a version was added (201); false for an idempotent retry or an edit (200). */
  created: boolean;
  id: string;
  rev: string;
  /** Where the caller stands against the publish limit, after a publish (undefined: no limit, or an edit). */
  publishLimit: LimitState | undefined;
}

export interface PackagePutParts {
  config: Pick<Config, 'maxTarballSize'>;
  publish: PublishService;
  packageUpdates: PackageUpdateService;
  rateLimits: RateLimitService;
  secondFactors: Pick<SecondFactorService, 'requireWriteCode'>;
  audit: AuditTrail;
  /** Where a failure that must not fail the write goes (an audit entry, a refund of the limit). */
  onError: (err: unknown, task: string) => void;
}

/**
 * `PUT /<name>`, whole: npm's publish (a body with `_attachments`) or npm's edit of the document
 * without attachments (`npm deprecate` sends the whole document back this way). In order:
 * the name and the caller (a token that can write, its second factor), the declared length,
 * the publish limit, all before one byte of the body is read; then the body, streamed (its
 * tarball into an upload of the blob store, within the registry's quota); then the publish
 * (maintainers, team namespaces, the tarball's checks, the registry's signature) or the edit;
 * then the audit log and the webhook outbox (audit-trail.ts). A write refused (4xx) is taken
 * back from the publish limit, and so is an edit, which is no publish.
 */
export class PackagePutService {
  /** Most bytes of the body (413 beyond it). */
  readonly bodyLimit: number;
  readonly #parts: PackagePutParts;

  constructor(parts: PackagePutParts) {
    this.#parts = parts;
    this.bodyLimit = documentBodyLimit(parts.config);
  }

  async put(put: PackagePut): Promise<PackagePutResult> {
    const { ctx } = put;
    const { tenant, settings } = ctx;
    const name = packageNameParam(put.name);
    const caller = publisherOf(ctx);
    // Before the body: a publish that needs a code is refused without reading its tarball.
    await this.#parts.secondFactors.requireWriteCode(tenant, caller, put.otp, 'Publishing');
    if (put.body === undefined) throw requestBodyEmpty();
    if (put.declaredLength !== undefined && put.declaredLength > this.bodyLimit) {
      throw payloadTooLarge('request body', this.bodyLimit);
    }
    // Counted before the body is read: a caller over the limit is refused before uploading a
    // tarball, and concurrent publishes cannot all slip under it. Only the body tells a
    // publish from an edit, so an edit is counted too, and taken back once it shows itself.
    let counted = true;
    try {
      const publishLimit = await this.#parts.rateLimits.count('publish', tenant, caller.user, settings.rateLimitPublish);
      const quota = usageLimitOf(settings);
      const received = await this.#parts.publish.receive(tenant, caller, name, put.body, {
        bodyLimit: this.bodyLimit,
        declaredLength: put.declaredLength,
        quota,
      });
      try {
        if (isPublishBody(received.document)) {
          const result = await this.#publish(ctx, caller, name, received, quota, put.address);
          return { ...result, publishLimit };
        }
        counted = false;
        this.#refund(ctx, caller);
        return await this.#edit(ctx, caller, name, received, put.address);
      } finally {
        await received.discard();
      }
    } catch (err) {
      // A refusal (including the 429 itself, which was counted) is not a publish; a failure of
      // the registry's own (5xx) keeps its count, as it may have published.
      if (counted && err instanceof ProtocolError && err.status < 500) this.#refund(ctx, caller);
      throw err;
    }
  }

  async #publish(
    ctx: RequestContext,
    caller: Caller,
    name: string,
    received: ReceivedDocument,
    quota: UsageLimit | undefined,
    address: string,
  ): Promise<Omit<PackagePutResult, 'publishLimit'>> {
    if (ctx.settings.requireTwoFactor && caller.secondFactor === undefined) {
      throw new ProtocolError(
        'FORBIDDEN',
        'This registry requires two-factor sign-in to publish: turn it on first (npm profile enable-2fa auth-and-writes, or the web account page)',
      );
    }
    const { created, rev, version } = await this.#parts.publish.publish(ctx.tenant, caller, name, received, quota);
    await this.#record(ctx.tenant, caller, address, [
      { action: 'package.publish', package: name, target: `${name}@${version}`, details: { version } },
    ]);
    return { created, id: name, rev };
  }

  async #edit(
    ctx: RequestContext,
    caller: Caller,
    name: string,
    received: ReceivedDocument,
    address: string,
  ): Promise<PackagePutResult> {
    refusePublishOnly(caller);
    const { rev, changes } = await this.#parts.packageUpdates.update(ctx.tenant, caller, name, received.document, {
      rev: undefined,
      allowRemoval: false,
    });
    await this.#record(ctx.tenant, caller, address, packageChangeNotes(name, changes));
    return { created: false, id: name, rev, publishLimit: undefined };
  }

  /** Records the changes made before the answer goes out: a client that sees its write done finds it in the log. */
  async #record(tenant: TenantId, caller: Caller, address: string, changes: PackageChangeNote[]): Promise<void> {
    const who = actorOf(caller, address);
    try {
      for (const change of changes) await this.#parts.audit.record(tenant, { ...who, outcome: 'success', ...change });
    } catch (err) {
      // The change is made: failing to log it must not answer the client that it was not.
      this.#parts.onError(err, 'recording a change in the audit log');
    }
  }

  /** Takes one count back from the publish limit, without delaying the answer: a failure costs the caller one count. */
  #refund(ctx: RequestContext, caller: Caller): void {
    this.#parts.rateLimits
      .refund('publish', ctx.tenant, caller.user, ctx.settings.rateLimitPublish)
      .catch((err: unknown) => this.#parts.onError(err, 'taking a refused publish back from the publish limit'));
  }
}
