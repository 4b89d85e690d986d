/**
 * Every token a test received in a response through this kit (login bodies), so that each test
 * registry can check on close that none of them reached its log: the log check then covers the
 * whole test run, not only the tests that look for it.
 */
const issued = new Set<string>();

/** Records `body.token` when a response body carries one. */
export function recordIssuedToken(body: unknown): void {
  const token = (body as { token?: unknown } | undefined)?.token;
  if (typeof token === 'string' && token.length >= 32) issued.add(token);
}

/** The recorded tokens that occur in `text`. */
export function leakedTokens(text: string): string[] {
  return [...issued].filter((token) => text.includes(token));
}
