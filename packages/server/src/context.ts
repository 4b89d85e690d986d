import type { EffectiveSettings } from './services/tenant-service.js';
import type { TenantId } from './storage/ports.js';

/** Who is calling, resolved once per request by the request-context plugin. */
export interface Caller {
  user: string;
  /** sha256 of the token used, so logout and revocation can name it without the token. */
  tokenHash: string;
  readonly: boolean;
}

/** Per-request facts every route needs: which registry, its public URL, and the caller. */
export interface RequestContext {
  tenant: TenantId;
  /** Public URL of this registry host, no trailing slash (e.g. `https://acme.example.com`). */
  baseUrl: string;
  /** Base of tarball URLs: cdnUrl when configured for the global registry, else baseUrl. */
  tarballBaseUrl: string;
  caller: Caller | null;
  /** This registry's settings (the tenant's own over the server configuration). */
  settings: EffectiveSettings;
}

declare module 'fastify' {
  interface FastifyRequest {
    ctx: RequestContext;
  }
  interface FastifyContextConfig {
    /**
     * Reachable without a token even on a registry whose reads need one (`readAccess: token`):
     * login, logout (the token is in the path), ping.
     */
    openAccess?: boolean;
  }
}
