/**
 * The `WWW-Authenticate` challenge of a 401. npm 10 and 11 (lib/utils/error-message.js) print
 * a fixed text of their own for a challenge that names `Bearer` or `Basic` ("your
 * authentication token seems to be invalid", "Incorrect or missing password"), and for any
 * other scheme `Unable to authenticate, need: <the header>`; the body's `error` never reaches
 * the user. So the challenge names a scheme of its own, `Token`, and carries the refusal's
 * reason as a parameter: npm then prints the reason. (`OTP` is npm's own scheme for "a
 * one-time password is needed", which makes it prompt; such errors set the header themselves.)
 */
export const CHALLENGE_SCHEME = 'Token';

/** Longest reason carried in the header (the body has it whole). */
const MAX_REASON = 300;

export function challengeOf(reason: string): string {
  return `${CHALLENGE_SCHEME} reason="${headerSafe(reason)}"`;
}

/**
 * The reason as a quoted-string of printable ASCII: a header value cannot carry other bytes,
 * and a quote or backslash would end or escape the string early.
 */
function headerSafe(reason: string): string {
  const ascii = reason
    .normalize('NFKD')
    .replace(/[\u2018\u2019]/g, "'")
    .replace(/[\u201c\u201d"]/g, "'")
    .replace(/\u2026/g, '...')
    .replace(/\\/g, '/')
    .replace(/[^\x20-\x7e]/g, '');
  return ascii.length > MAX_REASON ? `${ascii.slice(0, MAX_REASON - 3)}...` : ascii;
}
