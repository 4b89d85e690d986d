import { describe, expect, it } from 'vitest';
import { checkPathParameter, parseLoginBody } from '../../src/routes/login-body.js';

const failure = (run: () => unknown) => {
  try {
    run();
  } catch (err) {
    return err as { code: string; message: string };
  }
  throw new Error('expected a failure');
};

describe('the login body', () => {
  it('keeps name, password and e-mail from the document npm sends, and accepts its other fields', () => {
    const body = {
      _id: 'org.couchdb.user:ann',
      name: 'ann',
      password: 'secret',
      email: 'ann@example.com',
      type: 'user',
      roles: ['dev'],
      date: '2026-11-26T08:00:00.000Z',
    };
    expect(parseLoginBody(body)).toEqual({ name: 'ann', password: 'secret', email: 'ann@example.com' });
    expect(parseLoginBody({ name: 'ann', password: 'secret' })).toEqual({ name: 'ann', password: 'secret' });
  });

  it.each([
    ['null', null, 'JSON object'],
    ['an array', [{ name: 'a', password: 'p' }], 'JSON object'],
    ['a string', 'name=a', 'JSON object'],
    ['no name', { password: 'p' }, "must have 'name'"],
    ['no password', { name: 'a' }, "must have 'password'"],
    ['an empty name', { name: '', password: 'p' }, "'name' must be a non-empty string of at most 128"],
    ['a number for a name', { name: 42, password: 'p' }, "'name' must be a non-empty string"],
    ['an over-long password', { name: 'a', password: 'x'.repeat(1025) }, "'password' must be a non-empty string of at most 1024"],
    ['an e-mail that is not a string', { name: 'a', password: 'p', email: ['a@b.c'] }, "'email' must be a string of at most 254"],
    ['roles that are not strings', { name: 'a', password: 'p', roles: [{}] }, "'roles' must be an array"],
    ['too many roles', { name: 'a', password: 'p', roles: Array.from({ length: 33 }, () => 'r') }, 'at most 32 strings'],
    ['roles as a string', { name: 'a', password: 'p', roles: 'admin' }, "'roles' must be an array"],
    ['an unknown field', { name: 'a', password: 'p', admin: true }, "unknown field 'admin'"],
    ['an inherited name', JSON.parse('{"name":"a","password":"p","toString":"x"}'), "unknown field 'toString'"],
  ])('refuses %s with a 400 that says why', (_label, body, problem) => {
    const err = failure(() => parseLoginBody(body));
    expect(err.code).toBe('BAD_REQUEST');
    expect(err.message).toContain(problem);
  });
});

describe('path parameters', () => {
  it('passes a value within its bound', () => {
    expect(checkPathParameter('token', 'abc', 3)).toBe('abc');
  });

  it.each([
    ['empty', ''],
    ['too long', 'abcd'],
  ])('refuses one that is %s', (_label, value) => {
    const err = failure(() => checkPathParameter('token', value, 3));
    expect(err.code).toBe('BAD_REQUEST');
    expect(err.message).toContain('The token in the path must have 1 to 3 characters');
  });
});
