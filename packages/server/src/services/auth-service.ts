import { createHmac, randomBytes } from 'node:crypto';
import { ProtocolError, type LoginResponse } from '@pkg/protocol';
import type { Caller } from '../context.js';
import type { ServerDeps } from '../deps.js';
import type { TenantId, TokenRecord, TokenScope, UserRecord } from '../storage/ports.js';
import { checkEmail, USER_NAME } from './account-names.js';
import { dummyPasswordHash, hashPassword, verifyPassword } from './passwords.js';
import { checkNewPassword } from './password-policy.js';
import { hashToken, newToken } from './tokens.js';
import { LoginThrottle } from './login-throttle.js';
import { SecondFactorService } from './second-factor.js';
import type { CounterStore } from '../storage/counter-store.js';
import { singleIncarnation, type TenantScopeOf } from './tenant-scope.js';

export interface LoginInput {
  name: string;
  password: string;
  email: string | undefined;
  /** The caller's address, for throttling failed logins. */
  clientIp: string;
  /** A one-time password (`npm-otp`), for an account with two-factor sign-in. */
  otp?: string | undefined;
}

/** Name and password sent with a request (`Authorization: Basic`, npm's and Unity's `_auth`). */
export interface BasicCredentials {
  name: string;
  password: string;
  /** The caller's address, for throttling wrong passwords as failed logins. */
  clientIp: string;
}

export interface RegistrySettings {
  signup: boolean;
}

/** Characters of a token kept in clear so its owner can recognise it in a list. */
const TOKEN_PREFIX_LENGTH = 6;
/** Length of the public id of a token: the start of its sha256, which reveals nothing of it. */
const TOKEN_ID_LENGTH = 16;

/** A token as its owner may see it listed: never the token itself. */
export interface TokenSummary {
  /** Public id (the hash's start): what a revocation names. */
  id: string;
  /** The token's first characters, when stored. */
  prefix: string | undefined;
  createdAt: string;
  expiresAt: string | null;
  readonly: boolean;
  /** Its limits beyond read-only and expiry; absent: none. */
  scope: TokenScope | undefined;
  /** When and from where it was last used (to about a minute); undefined: not since recorded. */
  lastUsedAt: string | undefined;
  lastAddress: string | undefined;
}

/** What a new token is limited to. */
export interface TokenLimits {
  readonly?: boolean;
  scope?: TokenScope;
  /** An expiry of its own; the registry's tokenTtl still applies when it comes sooner. */
  expiresAt?: Date;
}

/**
 * Authenticated tokens kept in memory, so a request with a token costs one sha256 and a map
 * lookup instead of two database reads. An entry is trusted while the store's
 * credentialsVersion() is unchanged (a logout, revocation or user change through this store
 * changes it; on SQLite, one by another process too); what the version cannot see (another
 * node's writes on PostgreSQL, or a store without a version) is re-read after TOKEN_CACHE_MS.
 */
const TOKEN_CACHE_MS = 1000;
const TOKEN_CACHE_SIZE = 10_000;

interface CachedCaller {
  caller: Caller;
  /** The token's own expiry (ms since the epoch, on the injectable clock), or null. */
  expiresAt: number | null;
  version: number | undefined;
  /** performance.now() after which the store is asked again (stores without a version). */
  recheckAt: number;
}

/** What AuthService reaches of the server's deps. */
export type AuthServiceDeps = Pick<ServerDeps, 'config' | 'registry' | 'now'>;

/** Accounts and tokens: login (with sign-up), token authentication, logout. */
export class AuthService {
  readonly #deps: AuthServiceDeps;
  readonly #throttle: LoginThrottle;
  readonly #secondFactors: SecondFactorService;
  readonly #callers = new Map<string, CachedCaller>();
  /**
   * Keys the cache entries of Basic credentials: the cache holds an HMAC of name and password
   * under this per-process key, never the password or a plain hash of it.
   */
  readonly #basicKey = randomBytes(32);

  readonly #scopeOf: TenantScopeOf;

  constructor(deps: AuthServiceDeps, counters: CounterStore, scopeOf: TenantScopeOf = singleIncarnation) {
    this.#deps = deps;
    this.#secondFactors = new SecondFactorService(deps);
    this.#scopeOf = scopeOf;
    this.#throttle = new LoginThrottle(
      counters,
      {
        perAccountAndAddress: deps.config.loginFailureLimit,
        perAddress: deps.config.loginFailureLimitPerAddress,
        windowSeconds: deps.config.loginFailureWindow,
      },
      scopeOf,
    );
  }

  /**
   * Logs in, creating the account when it does not exist and sign-up is open. Wrong password
   * and unknown user with sign-up closed get the same answer, so it does not reveal accounts.
   */
  async login(
    tenant: TenantId,
    input: LoginInput,
    settings: RegistrySettings,
  ): Promise<{ created: boolean; response: LoginResponse }> {
    const { user, created } = await this.checkCredentials(tenant, input, settings);
    const token = await this.issueToken(tenant, user.name);
    return {
      created,
      // The revision is random: deriving it from the token would hand out part of the secret.
      response: { ok: true, id: `org.registry.user:${user.name}`, rev: `1-${randomBytes(16).toString('hex')}`, token },
    };
  }

  /**
   * `login` without the token: checks name and password, throttled and creating the account as
   * `login` does. The web interface signs in with it and issues a token only when npm collects one.
   */
  async checkCredentials(
    tenant: TenantId,
    input: LoginInput,
    settings: RegistrySettings,
  ): Promise<{ user: UserRecord; created: boolean }> {
    if (!USER_NAME.test(input.name)) {
      throw new ProtocolError('VALIDATION_ERROR', 'user name must be 1-128 characters of letters, digits, ".", "_" and "-"');
    }
    if (input.password.length === 0 || input.password.length > 1024) {
      throw new ProtocolError('VALIDATION_ERROR', 'password must be 1-1024 characters');
    }
    // Before any password work: a throttled guesser costs no scrypt time.
    await this.#throttle.check(tenant, input.name, input.clientIp);
    let outcome: { user: UserRecord; created: boolean };
    try {
      outcome = await this.#verifyOrCreate(tenant, input, settings);
    } catch (err) {
      if (err instanceof ProtocolError && err.code === 'UNAUTHORIZED') {
        await this.#throttle.recordFailure(tenant, input.name, input.clientIp);
      }
      throw err;
    }
    if (SecondFactorService.active(outcome.user)) {
      try {
        await this.#secondFactors.check(tenant, outcome.user, input.otp, 'Logging in to this account');
      } catch (err) {
        // A wrong code is a guess like a wrong password; asking for the first code is not.
        if (input.otp !== undefined && input.otp !== '') await this.#throttle.recordFailure(tenant, input.name, input.clientIp);
        throw err;
      }
    }
    await this.#throttle.recordSuccess(tenant, input.name, input.clientIp);
    return outcome;
  }

  /** The account the credentials belong to, created first when sign-up allows; else 401. */
  async #verifyOrCreate(
    tenant: TenantId,
    input: LoginInput,
    settings: RegistrySettings,
  ): Promise<{ user: UserRecord; created: boolean }> {
    const { registry } = this.#deps;
    const existing = await registry.users.get(tenant, input.name);
    if (existing !== undefined) {
      if (!(await verifyPassword(input.password, existing.passwordHash)) || existing.disabled) {
        throw settings.signup ? wrongPassword(input.name) : invalidCredentials(CLOSED_SIGNUP);
      }
      return { user: existing, created: false };
    }
    if (!settings.signup) {
      await verifyPassword(input.password, await dummyPasswordHash());
      throw invalidCredentials(CLOSED_SIGNUP);
    }
    // `npm login` sends no e-mail (only `npm adduser` does); one given must be valid.
    checkEmail(input.email);
    // A new account's password meets the policy; an existing one keeps working as it is.
    checkNewPassword(input.password, this.#deps.config.passwordMinLength, input.name);
    const candidate: UserRecord = {
      name: input.name,
      email: input.email ?? '',
      passwordHash: await hashPassword(input.password),
      createdAt: this.#deps.now().toISOString(),
      disabled: false,
    };
    if (await registry.users.create(tenant, candidate)) return { user: candidate, created: true };
    // A concurrent sign-up of the same name won: these credentials must match that account.
    const winner = await registry.users.get(tenant, input.name);
    if (!winner || winner.disabled || !(await verifyPassword(input.password, winner.passwordHash)))
      throw wrongPassword(input.name);
    return { user: winner, created: false };
  }

  /** Creates a token for a user and returns it; the store keeps only its hash. */
  async issueToken(tenant: TenantId, user: string, readonly = false): Promise<string> {
    return (await this.issueLimitedToken(tenant, user, { readonly })).token;
  }

  /** Creates a token with limits; returns it (shown once) and its summary. */
  async issueLimitedToken(
    tenant: TenantId,
    user: string,
    limits: TokenLimits,
  ): Promise<{ token: string; summary: TokenSummary }> {
    const token = newToken();
    const now = this.#deps.now();
    const ttl = this.#deps.config.tokenTtl;
    const expiries = [ttl > 0 ? now.getTime() + ttl * 1000 : Infinity, limits.expiresAt?.getTime() ?? Infinity];
    const expiresAt = Math.min(...expiries);
    const record: TokenRecord = {
      hash: hashToken(token),
      user,
      createdAt: now.toISOString(),
      expiresAt: expiresAt === Infinity ? null : new Date(expiresAt).toISOString(),
      readonly: limits.readonly ?? false,
      prefix: token.slice(0, TOKEN_PREFIX_LENGTH),
      ...(limits.scope ? { scope: limits.scope } : {}),
    };
    await this.#deps.registry.tokens.create(tenant, record);
    return { token, summary: summaryOf(record) };
  }

  /** The caller behind a bearer token, or null (no token, unknown, expired, revoked, disabled user). */
  async authenticate(tenant: TenantId, token: string | undefined): Promise<Caller | null> {
    if (token === undefined || token.length === 0 || token.length > 512) return null;
    const hash = hashToken(token);
    const key = `${this.#scopeOf(tenant)}\0${hash}`;
    const { registry } = this.#deps;
    const version = registry.credentialsVersion?.();
    const known = this.#known(key, version);
    if (known !== undefined) return known;
    const record = await registry.tokens.get(tenant, hash);
    if (!record) return null;
    const expiresAt = record.expiresAt === null ? null : Date.parse(record.expiresAt);
    if (expiresAt !== null && expiresAt <= this.#deps.now().getTime()) return null;
    const user = await registry.users.get(tenant, record.user);
    if (!user || user.disabled) return null;
    const caller: Caller = {
      user: record.user,
      email: user.email,
      tokenHash: hash,
      readonly: record.readonly,
      ...(record.scope ? { scope: record.scope } : {}),
      ...(SecondFactorService.active(user) ? { secondFactor: user.secondFactor!.mode } : {}),
    };
    // A write during the reads above changed the version: the next request asks again.
    this.#remember(key, { caller, expiresAt, version, recheckAt: performance.now() + TOKEN_CACHE_MS });
    return caller;
  }

  /**
   * Why `authenticate` found no caller behind a token, in words its holder can act on: asked
   * only once a token was refused, so a valid token never pays for it.
   */
  async refusalOf(tenant: TenantId, token: string): Promise<string> {
    const again = 'log in again or create a new token';
    if (token.length === 0 || token.length > 512) return `This is not a token of this registry: ${again}`;
    const record = await this.#deps.registry.tokens.get(tenant, hashToken(token));
    if (!record) return `This token is not valid here: it was revoked, or this registry never issued it; ${again}`;
    if (record.expiresAt !== null && Date.parse(record.expiresAt) <= this.#deps.now().getTime()) {
      return `This token expired at ${record.expiresAt}: ${again}`;
    }
    return `The account '${record.user}' of this token is disabled: ask an administrator`;
  }

  /**
   * The caller behind `token` when the token cache can tell without a read (null: expired),
   * else undefined; `authenticate` gives the full answer.
   */
  cachedCaller(tenant: TenantId, token: string): Caller | null | undefined {
    if (token.length === 0 || token.length > 512) return null;
    return this.#known(`${this.#scopeOf(tenant)}\0${hashToken(token)}`, this.#deps.registry.credentialsVersion?.());
  }

  /**
   * The caller behind a name and password sent with a request, checked as a login checks them
   * (same throttle, a disabled user refused, an unknown name costing the same password work) but
   * never creating an account. Wrong: 401 `Invalid credentials`; throttled: 429. A verified pair
   * is remembered as tokens are, so a client sending it with every request pays the password
   * hash once.
   */
  async authenticateBasic(tenant: TenantId, credentials: BasicCredentials): Promise<Caller> {
    const key = this.#basicCacheKey(tenant, credentials);
    const version = this.#deps.registry.credentialsVersion?.();
    const known = this.#known(key, version);
    if (known) return known;
    const user = await this.confirmPassword(tenant, credentials);
    if (SecondFactorService.active(user)) {
      throw new ProtocolError(
        'UNAUTHORIZED',
        `The account '${user.name}' signs in with two factors: use a token (npm login, pkg login), not its password`,
      );
    }
    const caller: Caller = { user: user.name, email: user.email, readonly: false };
    this.#remember(key, { caller, expiresAt: null, version, recheckAt: performance.now() + TOKEN_CACHE_MS });
    return caller;
  }

  /**
   * Checks a user's password as a login does (throttled, a disabled user refused, an unknown name
   * costing the same work) without signing in: what a new token or a change of two-factor
   * sign-in asks for again. Wrong: 401 `Invalid credentials`.
   */
  async confirmPassword(tenant: TenantId, { name, password, clientIp }: BasicCredentials): Promise<UserRecord> {
    if (!USER_NAME.test(name) || password.length === 0 || password.length > 1024) throw invalidCredentials();
    await this.#throttle.check(tenant, name, clientIp);
    const user = await this.#deps.registry.users.get(tenant, name);
    const valid = await verifyPassword(password, user?.passwordHash ?? (await dummyPasswordHash()));
    if (!user || !valid || user.disabled) {
      await this.#throttle.recordFailure(tenant, name, clientIp);
      throw invalidCredentials();
    }
    await this.#throttle.recordSuccess(tenant, name, clientIp);
    return user;
  }

  /** `authenticateBasic`'s answer when the cache knows it without a read, else undefined. */
  cachedBasicCaller(tenant: TenantId, credentials: BasicCredentials): Caller | undefined {
    return this.#known(this.#basicCacheKey(tenant, credentials), this.#deps.registry.credentialsVersion?.()) ?? undefined;
  }

  #basicCacheKey(tenant: TenantId, { name, password }: BasicCredentials): string {
    const mac = createHmac('sha256', this.#basicKey).update(`${name}\0${password}`).digest('hex');
    return `${this.#scopeOf(tenant)}\0basic\0${mac}`;
  }

  #remember(key: string, entry: CachedCaller): void {
    if (this.#callers.size >= TOKEN_CACHE_SIZE) this.#callers.delete(this.#callers.keys().next().value!);
    this.#callers.set(key, entry);
  }

  #known(key: string, version: number | undefined): Caller | null | undefined {
    const cached = this.#callers.get(key);
    if (!cached || cached.version !== version) return undefined;
    // A version that only sees this process's writes: other nodes' revocations need a re-read.
    if (!this.#deps.registry.credentialsVersionCoversOthers && cached.recheckAt <= performance.now()) return undefined;
    if (cached.expiresAt === null || cached.expiresAt > this.#deps.now().getTime()) return cached.caller;
    this.#callers.delete(key);
    return null;
  }

  /**
   * Invalidates one token. Idempotent: an unknown token answers the same, so a retried logout
   * succeeds and the answer does not tell whether a guessed token existed.
   */
  async logout(tenant: TenantId, token: string): Promise<boolean> {
    if (token.length === 0 || token.length > 512) return false;
    return this.#revoke(tenant, hashToken(token));
  }

  /** A user's tokens, newest first. */
  async listTokens(tenant: TenantId, user: string): Promise<TokenSummary[]> {
    const tokens = await this.#deps.registry.tokens.listOfUser(tenant, user);
    return tokens.map(summaryOf);
  }

  /** Revokes the user's token with that public id; false when the user has no such token. */
  async revokeToken(tenant: TenantId, user: string, id: string): Promise<boolean> {
    if (!/^[0-9a-f]{16}$/.test(id)) return false;
    const matches = (await this.#deps.registry.tokens.listOfUser(tenant, user)).filter((t) => t.hash.startsWith(id));
    if (matches.length !== 1) return false;
    return this.#revoke(tenant, matches[0]!.hash);
  }

  /** The one way a token ends: out of the cache of authenticated tokens, then out of the store. */
  #revoke(tenant: TenantId, hash: string): Promise<boolean> {
    this.#callers.delete(`${this.#scopeOf(tenant)}\0${hash}`);
    return this.#deps.registry.tokens.delete(tenant, hash);
  }

  async getUser(tenant: TenantId, name: string): Promise<UserRecord | undefined> {
    return this.#deps.registry.users.get(tenant, name);
  }
}

/**
 * With sign-up closed, a wrong password and an unknown name get this one answer, so it does not
 * reveal which accounts exist; it says why no account was created.
 */
const CLOSED_SIGNUP =
  'wrong user name or password (sign-up is closed on this registry: only existing accounts can log in, an administrator creates them)';

/** A refused name and password; `why` is what npm users read (npm prints nothing else). */
function invalidCredentials(why = 'wrong user name or password'): ProtocolError {
  return new ProtocolError('UNAUTHORIZED', `Invalid credentials: ${why}`);
}

/**
 * With sign-up open, a wrong password for an existing name: saying that the account exists
 * gives nothing away, since signing up under that name would tell as much.
 */
function wrongPassword(name: string): ProtocolError {
  return invalidCredentials(`wrong password for '${name}', or the account is disabled`);
}

function summaryOf(t: TokenRecord): TokenSummary {
  return {
    id: t.hash.slice(0, TOKEN_ID_LENGTH),
    prefix: t.prefix,
    createdAt: t.createdAt,
    expiresAt: t.expiresAt,
    readonly: t.readonly,
    scope: t.scope,
    lastUsedAt: t.lastUsedAt,
    lastAddress: t.lastAddress,
  };
}
