import type { EffectiveSettings } from '../context.js';
import type { StorageUsageStore, TenantId, UsageLimit } from '../storage/ports.js';
import { quotaProblem } from '../storage/storage-usage.js';
import type { IntakeQuota } from './tarball-intake.js';

/** The registry's quotas as the storage usage table takes them; undefined when it has none. */
export function usageLimitOf(settings: Pick<EffectiveSettings, 'quotaBytes' | 'quotaPackages'>): UsageLimit | undefined {
  if (settings.quotaBytes === 0 && settings.quotaPackages === 0) return undefined;
  return { bytes: settings.quotaBytes, packages: settings.quotaPackages };
}

/**
 * A registry's quotas, checked three times per publish so that a refusal comes as early as the
 * bytes are known and nothing is stored: when the tarball begins (a full registry, a package
 * past the package quota), while it streams in (once its bytes pass what is left), and under
 * the package's lock before anything is committed. The last word is the usage table's own check
 * in the write's transaction (storage/storage-usage.ts), which concurrent publishes cannot pass together.
 */
export class Quotas {
  readonly #usage: StorageUsageStore;

  constructor(usage: StorageUsageStore) {
    this.#usage = usage;
  }

  /** Before a tarball's first byte: refuses (throws) or tells what is left of the byte quota. */
  async admit(tenant: TenantId, limit: UsageLimit | undefined, newPackage: boolean): Promise<IntakeQuota | undefined> {
    if (!limit) return undefined;
    const before = await this.#usage.usage(tenant);
    const adds = newPackage ? 1 : 0;
    // One byte stands for the tarball: a full registry refuses any.
    const problem = quotaProblem(tenant, before, { bytes: before.bytes + 1, packages: before.packages + adds }, limit, true);
    if (problem) throw problem;
    if (!limit.bytes) return undefined;
    return {
      bytesLeft: limit.bytes - before.bytes,
      refuse: (bytes) => quotaProblem(tenant, before, { bytes: before.bytes + bytes, packages: before.packages }, limit)!,
    };
  }

  /** Under the package's lock, before the upload is committed: throws when the version does not fit. */
  async check(tenant: TenantId, limit: UsageLimit | undefined, bytes: number, newPackage: boolean): Promise<void> {
    if (!limit) return;
    const before = await this.#usage.usage(tenant);
    const problem = quotaProblem(
      tenant,
      before,
      { bytes: before.bytes + bytes, packages: before.packages + (newPackage ? 1 : 0) },
      limit,
    );
    if (problem) throw problem;
  }
}
