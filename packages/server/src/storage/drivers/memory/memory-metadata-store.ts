import { blobKeysOfVersion } from '../../blob-keys.js';
import { KeyedMutex } from '../../keyed-mutex.js';
import { packageHandle, type PackageRecords } from '../../package-handle.js';
import {
  GLOBAL_TENANT,
  TenantGoneError,
  type MetadataStore,
  type PackageHandle,
  type PackageMutation,
  type SessionRecord,
  type StoredPackage,
  type TenantId,
  type TenantRecord,
  type TenantSettings,
  type TokenRecord,
  type TokenUse,
  type UserRecord,
} from '../../ports.js';

/** What a memory search index or download count store learns of the metadata store's writes. */
export interface MemoryPackageWriteHook {
  /** A package was written (in the same turn as the write: no reader sees one without the other). */
  onWrite(tenant: TenantId, name: string, pkg: StoredPackage): void;
  /** Before the write, with what it carries (`usage`): throwing refuses the write, nothing changed. */
  beforeWrite?(tenant: TenantId, name: string, pkg: StoredPackage): void;
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
}

const key = (tenant: TenantId, name: string) => `${tenant}\0${name}`;
const copy = <T>(value: T): T => structuredClone(value);

/**
 * The metadata store in process memory: every method of the port, nothing kept after the
 * process. For tests of services and routes without a database, and for a registry that needs
 * no persistence. It passes the same contract suites as the SQLite and PostgreSQL drivers.
 */
export class MemoryMetadataStore implements MetadataStore, PackageRecords {
  readonly #db: MemoryDatabase;
  readonly #hooks: readonly MemoryPackageWriteHook[];
  /** Every store on the database sees every write: the version covers other "processes". */
  readonly credentialsVersionCoversOthers = true;

  constructor(db: MemoryDatabase = new MemoryDatabase(), hooks: readonly MemoryPackageWriteHook[] = []) {
    this.#db = db;
    this.#hooks = hooks;
  }

  async migrate(): Promise<void> {}
  async close(): Promise<void> {}
  async ping(): Promise<void> {}

  async getTenant(name: TenantId): Promise<TenantRecord | undefined> {
    const tenant = this.#db.tenants.get(name);
    return tenant && copy(tenant);
  }

  async listTenants(): Promise<TenantRecord[]> {
    return [...this.#db.tenants.values()].sort((a, b) => compare(a.name, b.name)).map(copy);
  }

  async createTenant(tenant: TenantRecord): Promise<boolean> {
    if (this.#db.tenants.has(tenant.name)) return false;
    this.#db.tenants.set(tenant.name, copy(tenant));
    this.#db.credentialWrites++;
    return true;
  }

  async updateTenantSettings(name: TenantId, settings: TenantSettings): Promise<boolean> {
    const tenant = this.#db.tenants.get(name);
    if (!tenant) return false;
    tenant.settings = copy(settings);
    this.#db.credentialWrites++;
    return true;
  }

  async deleteTenant(name: TenantId): Promise<boolean> {
    const db = this.#db;
    db.credentialWrites++;
    if (!db.tenants.delete(name)) return false;
    for (const map of [db.users, db.tokens, db.sessions, db.packages] as Map<string, unknown>[]) {
      for (const k of map.keys()) if (k.startsWith(`${name}\0`)) map.delete(k);
    }
    for (const hook of this.#hooks) hook.onTenantDelete?.(name);
    return true;
  }

  async getUser(tenant: TenantId, name: string): Promise<UserRecord | undefined> {
    const user = this.#db.users.get(key(tenant, name));
    return user && copy(user);
  }

  async createUser(tenant: TenantId, user: UserRecord): Promise<boolean> {
    this.#requireLiveTenant(tenant);
    if (this.#db.users.has(key(tenant, user.name))) return false;
    const stored = copy(user);
    // Not an administrator reads back absent, as the SQL drivers return it.
    if (stored.admin !== true) delete stored.admin;
    this.#db.users.set(key(tenant, user.name), stored);
    return true;
  }

  async deleteUser(tenant: TenantId, name: string): Promise<boolean> {
    const db = this.#db;
    db.credentialWrites++;
    if (!db.users.delete(key(tenant, name))) return false;
    for (const [k, token] of db.tokens) if (token.tenant === tenant && token.record.user === name) db.tokens.delete(k);
    for (const [k, session] of db.sessions) if (session.tenant === tenant && session.record.user === name) db.sessions.delete(k);
    return true;
  }

  async updateUser(tenant: TenantId, name: string, patch: Partial<Omit<UserRecord, 'name'>>): Promise<boolean> {
    this.#db.credentialWrites++;
    const user = this.#db.users.get(key(tenant, name));
    if (!user) return false;
    for (const [field, value] of Object.entries(patch)) {
      // A cleared second factor reads back absent, as the SQL drivers return it.
      if (field === 'secondFactor' && value === null) delete user.secondFactor;
      else if (field === 'admin' && value === false) delete user.admin;
      else if (value !== undefined && field !== 'name') (user as unknown as Record<string, unknown>)[field] = value;
    }
    return true;
  }

  async listUsers(tenant: TenantId): Promise<UserRecord[]> {
    return [...this.#db.users.entries()]
      .filter(([k]) => k.startsWith(`${tenant}\0`))
      .map(([, user]) => copy(user))
      .sort((a, b) => compare(a.name, b.name));
  }

  async createToken(tenant: TenantId, token: TokenRecord): Promise<void> {
    this.#requireLiveTenant(tenant);
    const k = key(tenant, token.hash);
    if (this.#db.tokens.has(k)) throw new Error('a token with this hash exists');
    this.#db.tokens.set(k, { tenant, record: copy(token) });
  }

  async getToken(tenant: TenantId, hash: string): Promise<TokenRecord | undefined> {
    const token = this.#db.tokens.get(key(tenant, hash));
    return token && copy(token.record);
  }

  async listTokens(tenant: TenantId): Promise<TokenRecord[]> {
    return this.#tokensOf(tenant).sort((a, b) => compare(a.hash, b.hash));
  }

  async deleteToken(tenant: TenantId, hash: string): Promise<boolean> {
    this.#db.credentialWrites++;
    return this.#db.tokens.delete(key(tenant, hash));
  }

  async deleteUserTokens(tenant: TenantId, user: string): Promise<number> {
    this.#db.credentialWrites++;
    let deleted = 0;
    for (const [k, token] of this.#db.tokens) {
      if (token.tenant === tenant && token.record.user === user && this.#db.tokens.delete(k)) deleted++;
    }
    return deleted;
  }

  credentialsVersion(): number {
    return this.#db.credentialWrites;
  }

  async listUserTokens(tenant: TenantId, user: string): Promise<TokenRecord[]> {
    return this.#tokensOf(tenant)
      .filter((token) => token.user === user)
      .sort((a, b) => compare(b.createdAt, a.createdAt) || compare(a.hash, b.hash));
  }

  async recordTokenUses(tenant: TenantId, uses: TokenUse[]): Promise<void> {
    for (const use of uses) {
      const token = this.#db.tokens.get(key(tenant, use.hash));
      if (token) token.record = { ...token.record, lastUsedAt: use.at, lastAddress: use.address };
    }
  }

  async createSession(tenant: TenantId, session: SessionRecord): Promise<void> {
    this.#requireLiveTenant(tenant);
    const k = key(tenant, session.hash);
    if (this.#db.sessions.has(k)) throw new Error('a session with this hash exists');
    this.#db.sessions.set(k, { tenant, record: copy(session) });
  }

  async getSession(tenant: TenantId, hash: string, now: string): Promise<SessionRecord | undefined> {
    const session = this.#db.sessions.get(key(tenant, hash));
    return session && session.record.expiresAt > now ? copy(session.record) : undefined;
  }

  async claimSession(tenant: TenantId, hash: string, user: string, now: string): Promise<boolean> {
    const session = this.#db.sessions.get(key(tenant, hash))?.record;
    if (!session || session.user !== null || session.expiresAt <= now) return false;
    session.user = user;
    return true;
  }

  async deleteSession(tenant: TenantId, hash: string): Promise<boolean> {
    return this.#db.sessions.delete(key(tenant, hash));
  }

  async deleteExpiredSessions(now: string): Promise<number> {
    let deleted = 0;
    for (const [k, session] of this.#db.sessions) {
      if (session.record.expiresAt <= now && this.#db.sessions.delete(k)) deleted++;
    }
    return deleted;
  }

  package(tenant: TenantId, name: string): PackageHandle {
    return packageHandle(this, tenant, name);
  }

  async getPackage(tenant: TenantId, name: string): Promise<StoredPackage | undefined> {
    const row = this.#db.packages.get(key(tenant, name));
    return row && (JSON.parse(row.json) as StoredPackage);
  }

  async versionsOf(tenant: TenantId, name: string): Promise<string[]> {
    return Object.keys((await this.getPackage(tenant, name))?.document.versions ?? {});
  }

  async updatePackage<T>(
    tenant: TenantId,
    name: string,
    mutate: (current: StoredPackage | undefined) => Promise<PackageMutation<T>> | PackageMutation<T>,
  ): Promise<T> {
    return this.#db.mutex.run(key(tenant, name), async () => {
      const { next, result } = await mutate(await this.getPackage(tenant, name));
      if (next === null) return result;
      // After the mutation's awaits: the tenant may have been deleted meanwhile.
      this.#requireLiveTenant(tenant);
      for (const hook of this.#hooks) hook.beforeWrite?.(tenant, name, next);
      const stored: StoredPackage = {
        document: next.document,
        publishedVersions: next.publishedVersions,
        unpublished: next.unpublished,
      };
      this.#db.packages.set(key(tenant, name), { tenant, name, json: JSON.stringify(stored) });
      for (const hook of this.#hooks) hook.onWrite(tenant, name, JSON.parse(JSON.stringify(stored)) as StoredPackage);
      return result;
    });
  }

  #requireLiveTenant(tenant: TenantId): void {
    if (!this.#db.tenantExists(tenant)) throw new TenantGoneError(tenant);
  }

  async listPackageNames(tenant: TenantId, options: { includeUnpublished?: boolean } = {}): Promise<string[]> {
    const names: string[] = [];
    for (const row of this.#db.packages.values()) {
      if (row.tenant !== tenant) continue;
      if (!options.includeUnpublished && (JSON.parse(row.json) as StoredPackage).unpublished) continue;
      names.push(row.name);
    }
    return names.sort(compare);
  }

  async referencedBlobKeys(): Promise<Set<string>> {
    const keys = new Set<string>();
    for (const row of this.#db.packages.values()) {
      const { document } = JSON.parse(row.json) as StoredPackage;
      for (const version of Object.keys(document.versions ?? {})) {
        for (const blobKey of blobKeysOfVersion(row.tenant, row.name, version)) keys.add(blobKey);
      }
    }
    return keys;
  }

  #tokensOf(tenant: TenantId): TokenRecord[] {
    return [...this.#db.tokens.values()].filter((token) => token.tenant === tenant).map((token) => copy(token.record));
  }
}

/** Byte order, as the databases compare text. */
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
