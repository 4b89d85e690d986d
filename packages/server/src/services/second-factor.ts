import { randomBytes, timingSafeEqual } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';
import { ProtocolError } from '@pkg/protocol';
import type { Caller } from '../context.js';
import type { ServerDeps } from '../deps.js';
import type { SecondFactor, TenantId, UserRecord } from '../storage/ports.js';
import { hashToken } from './tokens.js';

export type SecondFactorMode = SecondFactor['mode'];

/** RFC 6238's defaults, which every authenticator app takes: SHA-1, 6 digits, 30 seconds. */
const PERIOD = 30;
/** Codes of the step before and after are taken too: clocks drift, people type slowly. */
const WINDOW = 1;
const RECOVERY_CODES = 10;

/** The header npm sends a one-time password in (and `pkg` too). */
export const OTP_HEADER = 'npm-otp';

/**
 * The 401 that makes npm ask for a one-time password and send the request again with it
 * (`WWW-Authenticate: OTP`, npm's own challenge). Its reason names what needs the code.
 */
export function otpRequired(why: string): ProtocolError {
  return new ProtocolError('UNAUTHORIZED', `${why} needs a one-time password from your authenticator app`, {
    'www-authenticate': 'OTP',
  });
}

/** What SecondFactorService reaches of the server's deps. */
export type SecondFactorDeps = Pick<ServerDeps, 'registry' | 'now'>;

/**
 * Two-factor sign-in with TOTP (RFC 6238, through the `otpauth` library): enrolment as npm's
 * profile API drives it (begin with the password, then confirm with a first code, which returns
 * recovery codes), the check of a code (each good once: a step whose code was taken is never
 * taken again), recovery codes (each good once), and switching off.
 */
export class SecondFactorService {
  readonly #deps: SecondFactorDeps;

  constructor(deps: SecondFactorDeps) {
    this.#deps = deps;
  }

  /** Whether the user has a second factor in use (not one still waiting for its first code). */
  static active(user: Pick<UserRecord, 'secondFactor'> | undefined): SecondFactor | undefined {
    const factor = user?.secondFactor;
    return factor && !factor.pending ? factor : undefined;
  }

  /**
   * Starts enrolment: a new secret, pending until confirmed. Returns the `otpauth://` URL an
   * authenticator app reads (from a QR code, or its secret typed in).
   */
  async begin(tenant: TenantId, user: UserRecord, mode: SecondFactorMode, issuer: string): Promise<string> {
    const secret = new Secret({ size: 20 });
    const factor: SecondFactor = {
      mode,
      secret: secret.base32,
      pending: true,
      recoveryCodes: [],
      lastStep: 0,
      createdAt: this.#deps.now().toISOString(),
    };
    await this.#deps.registry.users.update(tenant, user.name, { secondFactor: factor });
    return this.#totp(factor.secret, user.name, issuer).toString();
  }

  /** The `otpauth://` URL of an enrolment still waiting for its first code (its QR code, shown again). */
  pendingUrl(user: UserRecord, issuer: string): string | undefined {
    const factor = user.secondFactor;
    return factor?.pending ? this.#totp(factor.secret, user.name, issuer).toString() : undefined;
  }

  /** Confirms a pending enrolment with a first code; returns the recovery codes, shown once. */
  async confirm(tenant: TenantId, user: UserRecord, code: unknown): Promise<string[]> {
    const factor = user.secondFactor;
    if (!factor?.pending)
      throw new ProtocolError('CONFLICT', 'Two-factor sign-in is not waiting for a first code: enable it first');
    const step = typeof code === 'string' ? this.#stepOf(factor.secret, code.trim()) : undefined;
    if (step === undefined) {
      throw new ProtocolError('VALIDATION_ERROR', 'That code is not the current one of the authenticator app: try the next code');
    }
    const codes = Array.from({ length: RECOVERY_CODES }, () => randomBytes(8).toString('hex'));
    await this.#deps.registry.users.update(tenant, user.name, {
      secondFactor: { ...factor, pending: false, lastStep: step, recoveryCodes: codes.map((c) => hashToken(c)) },
    });
    return codes;
  }

  async setMode(tenant: TenantId, user: UserRecord, mode: SecondFactorMode): Promise<void> {
    await this.#deps.registry.users.update(tenant, user.name, { secondFactor: { ...user.secondFactor!, mode } });
  }

  async disable(tenant: TenantId, user: string): Promise<void> {
    await this.#deps.registry.users.update(tenant, user, { secondFactor: null });
  }

  /**
   * A write by a user whose two-factor mode is `auth-and-writes` needs a one-time password (npm
   * asks for it on the 401 this answers without one, and sends the request again); automation
   * tokens are never asked, as npm's are not.
   */
  async requireWriteCode(tenant: TenantId, caller: Caller, code: string | undefined, why: string): Promise<void> {
    if (caller.secondFactor !== 'auth-and-writes' || caller.scope?.automation) return;
    const user = await this.#deps.registry.users.get(tenant, caller.user);
    if (user) await this.check(tenant, user, code, why);
  }

  /**
   * Checks a one-time password (or a recovery code) of a user with a second factor in use;
   * a missing or wrong one is the 401 that makes npm ask (otpRequired). A code taken is
   * recorded, so it cannot be replayed.
   */
  async check(tenant: TenantId, user: UserRecord, code: string | undefined, why: string): Promise<void> {
    const factor = SecondFactorService.active(user);
    if (!factor) return;
    const given = code?.trim() ?? '';
    if (given.length === 0 || given.length > 64) throw otpRequired(why);
    const step = this.#stepOf(factor.secret, given);
    if (step !== undefined && step > factor.lastStep) {
      await this.#deps.registry.users.update(tenant, user.name, { secondFactor: { ...factor, lastStep: step } });
      return;
    }
    const hash = hashToken(given);
    const recovery = factor.recoveryCodes.find((h) => timingSafeEqual(Buffer.from(h), Buffer.from(hash)));
    if (recovery === undefined) throw otpRequired(why);
    await this.#deps.registry.users.update(tenant, user.name, {
      secondFactor: { ...factor, recoveryCodes: factor.recoveryCodes.filter((h) => h !== recovery) },
    });
  }

  /** The time step whose code `code` is, within the window, or undefined. */
  #stepOf(secret: string, code: string): number | undefined {
    if (!/^\d{6}$/.test(code)) return undefined;
    const timestamp = this.#deps.now().getTime();
    const delta = this.#totp(secret, '', '').validate({ token: code, timestamp, window: WINDOW });
    return delta === null ? undefined : Math.floor(timestamp / 1000 / PERIOD) + delta;
  }

  #totp(secret: string, label: string, issuer: string): TOTP {
    return new TOTP({ issuer, label, algorithm: 'SHA1', digits: 6, period: PERIOD, secret: Secret.fromBase32(secret) });
  }
}
