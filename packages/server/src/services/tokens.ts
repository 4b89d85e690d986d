import { hash, randomBytes } from 'node:crypto';

/** A fresh bearer token: 256 random bits, URL-safe. Only its hash is ever stored. */
export function newToken(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * Tokens are stored and looked up by sha256: a token is 256 random bits, so a fast hash is as
 * safe as a slow KDF here, and whoami needs no password-hash work per request.
 */
export function hashToken(token: string): string {
  // The one-shot form: this runs on every request that carries a token.
  return hash('sha256', token, 'hex');
}
