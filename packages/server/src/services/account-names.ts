import { ProtocolError } from '@pkg/protocol';

/** A user name: what npm and `pkg` accept, and what fits a URL path segment as it is. */
export const USER_NAME = /^[a-z0-9][a-z0-9._-]{0,127}$/i;

/** An e-mail address as far as the registry checks one: something@something, of a sane length. */
export function isEmail(value: string): boolean {
  return value.length <= 254 && /^[^\s@]+@[^\s@]+$/.test(value);
}

/** An e-mail given for an account (none, or empty, is fine): 422 when it is not one. */
export function checkEmail(email: string | undefined): void {
  if (email !== undefined && email !== '' && !isEmail(email)) {
    throw new ProtocolError(
      'VALIDATION_ERROR',
      `'${email.length > 60 ? `${email.slice(0, 60)}…` : email}' is not a valid e-mail address`,
    );
  }
}
