import { ProtocolError } from '@pkg/protocol';
import { isObject } from '../services/json-shapes.js';

/** What a login needs from the CouchDB user document npm, pnpm and yarn send. */
export interface LoginBody {
  name: string;
  password: string;
  email?: string;
}

/** Each field a client may send, with its longest length; anything else in the body is a 400. */
const STRING_FIELDS: Record<string, { max: number; required?: true }> = {
  name: { max: 128, required: true },
  password: { max: 1024, required: true },
  email: { max: 254 },
  _id: { max: 200 },
  _rev: { max: 200 },
  type: { max: 32 },
  date: { max: 64 },
};
const MAX_ROLES = 32;
const MAX_ROLE_LENGTH = 128;

/**
 * Checks the body of `PUT /-/user/<id>` field by field (wrong types are refused, never coerced)
 * and returns what the login uses.
 */
export function parseLoginBody(body: unknown): LoginBody {
  if (!isObject(body)) throw bad('The login body must be a JSON object');
  for (const [field, value] of Object.entries(body)) {
    if (field === 'roles') {
      const valid =
        Array.isArray(value) &&
        value.length <= MAX_ROLES &&
        value.every((role) => typeof role === 'string' && role.length <= MAX_ROLE_LENGTH);
      if (!valid) throw bad(`'roles' must be an array of at most ${MAX_ROLES} strings of at most ${MAX_ROLE_LENGTH} characters`);
      continue;
    }
    // Own fields only: a body's `toString` or `constructor` must not find Object's.
    if (!Object.hasOwn(STRING_FIELDS, field)) throw bad(`The login body has an unknown field '${field.slice(0, 64)}'`);
    const rule = STRING_FIELDS[field]!;
    if (typeof value !== 'string' || value.length > rule.max || (rule.required && value.length === 0)) {
      throw bad(`'${field}' must be a ${rule.required ? 'non-empty ' : ''}string of at most ${rule.max} characters`);
    }
  }
  for (const [field, rule] of Object.entries(STRING_FIELDS)) {
    if (rule.required && body[field] === undefined) throw bad(`The login body must have '${field}'`);
  }
  const { name, password, email } = body as { name: string; password: string; email?: string };
  return email === undefined ? { name, password } : { name, password, email };
}

/** A path parameter of at most `max` characters, never empty. */
export function checkPathParameter(name: string, value: string, max: number): string {
  if (value.length === 0 || value.length > max) throw bad(`The ${name} in the path must have 1 to ${max} characters`);
  return value;
}

function bad(details: string): ProtocolError {
  return new ProtocolError('BAD_REQUEST', details);
}
