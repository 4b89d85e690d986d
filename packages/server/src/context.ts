import type { UplinkRules } from './config/uplink-config.js';
import type { TenantId, TokenScope } from './storage/ports.js';

/** Effective settings of one registry: the tenant's own overrides over the server configuration. */
export interface EffectiveSettings {
  signup: boolean;
  readAccess: 'anonymous' | 'token';
  /** Publishing needs an account with two-factor sign-in in use. */
  requireTwoFactor: boolean;
  rateLimitAnonymous: number;
  rateLimitAuthenticated: number;
  rateLimitPublish: number;
  /** The registry's quotas (0: none). */
  quotaBytes: number;
  quotaPackages: number;
  /** Web pages per hour per client IP (the server's setting: tenants share it). */
  rateLimitWeb: number;
  /** Which package names come from an upstream registry; undefined: every name is local. */
  uplinks: UplinkRules | undefined;
}

/** Who is calling, resolved once per request by the request-context plugin. */
export interface Caller {
  user: string;
  /** The user's e-mail when it was read with the token (whoami needs no further read). */
  email?: string;
  /**
   * sha256 of the token used, so logout and revocation can name it without the token; absent
   * when the caller sent its name and password (`Authorization: Basic`).
   */
  tokenHash?: string;
  readonly: boolean;
  /** The token's limits (packages, addresses, publish only, automation); absent: none. */
  scope?: TokenScope;
  /** The user's two-factor mode when it is in use: `auth-and-writes` asks a code for each write. */
  secondFactor?: 'auth-only' | 'auth-and-writes';
}

/** Per-request facts every route needs: which registry, its public URL, and the caller. */
export interface RequestContext {
  tenant: TenantId;
  /** Public URL of this registry host, no trailing slash (e.g. `https://acme.example.com`). */
  baseUrl: string;
  /** Base of tarball URLs: cdnUrl when configured for the global registry, else baseUrl. */
  tarballBaseUrl: string;
  caller: Caller | null;
  /**
   * Why the request's credentials were refused (a wrong password in `Authorization: Basic`, or
   * too many of them): the read-access step answers it instead of the route.
   */
  credentialError?: Error;
  /**
   * Why the request's bearer token was not accepted (expired, revoked, unknown): such a request
   * goes on as anonymous, and a 401 it earns says this instead of "log in".
   */
  tokenRefusal?: string;
  /** This registry's settings (the tenant's own over the server configuration). */
  settings: EffectiveSettings;
}
