import type { SigningKeyRecord, SigningKeyStore, TenantId } from '../../ports.js';
import type { MemoryPackageWriteHook } from './memory-metadata-store.js';

/** Signing keys in process memory: the memory storage's driver. */
export class MemorySigningKeys implements SigningKeyStore {
  readonly #keys = new Map<TenantId, SigningKeyRecord[]>();
  readonly #backfills = new Map<TenantId, string>();
  readonly #tenantExists: (tenant: TenantId) => boolean;

  readonly writeHook: MemoryPackageWriteHook = {
    onWrite: () => undefined,
    onTenantDelete: (tenant) => {
      this.#keys.delete(tenant);
      this.#backfills.delete(tenant);
    },
  };

  constructor(tenantExists: (tenant: TenantId) => boolean = () => true) {
    this.#tenantExists = tenantExists;
  }

  async list(tenant: TenantId): Promise<SigningKeyRecord[]> {
    return (this.#keys.get(tenant) ?? []).map((key) => ({ ...key }));
  }

  async createIfNone(tenant: TenantId, key: SigningKeyRecord): Promise<boolean> {
    if (!this.#tenantExists(tenant)) return false;
    const keys = this.#keys.get(tenant) ?? [];
    if (keys.some((k) => k.expiresAt === null)) return false;
    this.#keys.set(tenant, [...keys, { ...key, expiresAt: null }]);
    return true;
  }

  async copy(tenant: TenantId, key: SigningKeyRecord): Promise<boolean> {
    if (!this.#tenantExists(tenant)) return false;
    const keys = this.#keys.get(tenant) ?? [];
    if (keys.some((k) => k.keyid === key.keyid || (k.expiresAt === null && key.expiresAt === null))) return false;
    this.#keys.set(tenant, [...keys, { ...key }]);
    return true;
  }

  async rotate(tenant: TenantId, key: SigningKeyRecord, expiresAt: string): Promise<void> {
    if (!this.#tenantExists(tenant)) return;
    const keys = (this.#keys.get(tenant) ?? []).map((k) => (k.expiresAt === null ? { ...k, expiresAt } : k));
    this.#keys.set(tenant, [...keys, { ...key, expiresAt: null }]);
  }

  async backfilled(tenant: TenantId): Promise<boolean> {
    return this.#backfills.has(tenant);
  }

  async markBackfilled(tenant: TenantId, at: string): Promise<void> {
    if (this.#tenantExists(tenant) && !this.#backfills.has(tenant)) this.#backfills.set(tenant, at);
  }
}
