import { KeyedMutex } from '../../keyed-mutex.js';
import {
  GLOBAL_TENANT,
  TenantGoneError,
  type SessionRecord,
  type StoredPackage,
  type TenantId,
  type TenantRecord,
  type TokenRecord,
  type UserRecord,
  type PackageWrite,
} from '../../ports.js';

/** What a memory search index or download count store learns of the metadata store's writes. */
export interface MemoryPackageWriteHook {
  /** A package was written (in the same turn as the write: no reader sees one without the other). */
  onWrite(tenant: TenantId, name: string, pkg: StoredPackage): void;
  /** Before the write, with what it carries (`usage`): throwing refuses the write, nothing changed. */
  beforeWrite?(tenant: TenantId, name: string, pkg: StoredPackage): void;
  /** The same for several packages written together: throwing refuses them all, nothing changed. */
  beforeWrites?(tenant: TenantId, writes: readonly PackageWrite[]): void;
  onTenantDelete?(tenant: TenantId): void;
}

/**
 * The records of one memory "database": several MemoryMetadataStore objects opened on it behave
 * as several processes sharing a database (tests of caches and races). Records are kept as
 * copies, so no caller can change them without a write.
 */
export class MemoryDatabase {
  readonly tenants = new Map<TenantId, TenantRecord>();
  readonly users = new Map<string, UserRecord>();
  readonly tokens = new Map<string, { tenant: TenantId; record: TokenRecord }>();
  readonly sessions = new Map<string, { tenant: TenantId; record: SessionRecord }>();
  /** Packages as JSON, by `tenant\0name`. */
  readonly packages = new Map<string, { tenant: TenantId; name: string; json: string }>();
  /** One lock per package for every store on this database. */
  readonly mutex = new KeyedMutex();
  credentialWrites = 0;

  /** Whether writes to `tenant` are taken: the global registry, or a tenant that exists. */
  tenantExists(tenant: TenantId): boolean {
    return tenant === GLOBAL_TENANT || this.tenants.has(tenant);
  }

  requireLiveTenant(tenant: TenantId): void {
    if (!this.tenantExists(tenant)) throw new TenantGoneError(tenant);
  }
}

/** The key of a tenant's record in the database's maps. */
export const memoryKey = (tenant: TenantId, name: string) => `${tenant}\0${name}`;
export const copy = <T>(value: T): T => structuredClone(value);

/** Byte order, as the databases compare text. */
export function compareBytes(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
