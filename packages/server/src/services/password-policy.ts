import { ProtocolError } from '@pkg/protocol';
import { COMMON_PASSWORDS } from './common-passwords.js';

/** Longest password taken: longer ones are not more secure, and scrypt's input stays bounded. */
export const PASSWORD_MAX_LENGTH = 1024;

let common: Set<string> | undefined;

/** Built at first use: servers that never see a new password never hold the list. */
function commonPasswords(): Set<string> {
  common ??= new Set(COMMON_PASSWORDS.split('\n'));
  return common;
}

/**
 * The rules a new password must meet (NIST SP 800-63B 5.1.1.2): at least `minLength`
 * characters, not one of the most common passwords (compared case-insensitively), not the user
 * name. No composition rules: the guideline advises against them. Applied wherever a password
 * is chosen (sign-up, `npm adduser`, invitations, `user create`, `user reset-password`); an
 * existing password keeps working.
 */
export function checkNewPassword(password: string, minLength: number, userName?: string): void {
  // Characters as people count them (code points), not UTF-16 units.
  const length = [...password].length;
  if (length < minLength) {
    throw new ProtocolError('VALIDATION_ERROR', `password must be at least ${minLength} characters`);
  }
  if (password.length > PASSWORD_MAX_LENGTH) {
    throw new ProtocolError('VALIDATION_ERROR', `password must be at most ${PASSWORD_MAX_LENGTH} characters`);
  }
  const lower = password.toLowerCase();
  if (commonPasswords().has(lower)) {
    throw new ProtocolError('VALIDATION_ERROR', 'password is one of the most common passwords: choose another');
  }
  if (userName !== undefined && lower === userName.toLowerCase()) {
    throw new ProtocolError('VALIDATION_ERROR', 'password must not be the user name');
  }
}
