import { ProtocolError } from '@pkg/protocol';

/** A posted HTML form: field name → first value. */
export type Form = Record<string, string>;

/** The parsed form, or a 400 when the body was something else (text, an array, nothing). */
export function formOf(body: unknown): Form {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new ProtocolError('BAD_REQUEST', 'Send the form as application/x-www-form-urlencoded');
  }
  const form: Form = {};
  for (const [key, value] of Object.entries(body)) if (typeof value === 'string') form[key] = value;
  return form;
}
