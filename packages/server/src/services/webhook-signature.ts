import { createHmac, timingSafeEqual } from 'node:crypto';
import type { WebhookSecret } from '../storage/ports.js';

/** The header of the signatures, as GitHub's `X-Hub-Signature-256`. */
export const SIGNATURE_HEADER = 'x-pkg-signature-256';

/** `sha256=<hex>`: HMAC-SHA256 of the raw body under one secret. */
export function signatureOf(body: string, secret: string): string {
  return `sha256=${createHmac('sha256', secret).update(body, 'utf8').digest('hex')}`;
}

/**
 * The header value for `body`: one signature per secret in force at `now`, newest first,
 * separated by `, `. Outside a rotation there is one (GitHub's form exactly); during one the old
 * secret signs too, so a receiver that still holds it keeps verifying until it has the new one.
 */
export function signatureHeader(body: string, secrets: readonly WebhookSecret[], now: string): string {
  return secretsInForce(secrets, now)
    .map((s) => signatureOf(body, s.secret))
    .join(', ');
}

/** The secrets that sign at `now`: the current one and any rotated out less than its overlap ago. */
export function secretsInForce(secrets: readonly WebhookSecret[], now: string): WebhookSecret[] {
  return secrets.filter((s) => s.expiresAt === null || s.expiresAt > now);
}

/** What a receiver does: true when one of the header's signatures is `body`'s under `secret`. */
export function verifySignature(body: string, header: string, secret: string): boolean {
  const expected = Buffer.from(signatureOf(body, secret));
  return header.split(',').some((part) => {
    const given = Buffer.from(part.trim());
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}
