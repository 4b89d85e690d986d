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
}

declare module 'fastify' {
  interface FastifyRequest {
    ctx: RequestContext;
  }
}
