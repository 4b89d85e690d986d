import { describe, expect, it } from 'vitest';
import { tenantNameProblem } from '@pkg/server';

describe('tenant names are DNS labels', () => {
  it.each(['a', 'acme', 'team-42', '9lives', 'a'.repeat(63), 'x-y-z'])('accepts %s', (name) => {
    expect(tenantNameProblem(name)).toBeUndefined();
  });

  it.each([
    ['', 'must not be empty'],
    ['a'.repeat(64), 'at most 63 characters'],
    ['Acme', 'lower case'],
    ['-acme', 'DNS label'],
    ['acme-', 'DNS label'],
    ['ac_me', 'DNS label'],
    ['ac.me', 'DNS label'],
    ['_global', 'DNS label'],
    ['xn--80ak6aa92e', '"--" in the third and fourth place'],
    ['ab--c', '"--" in the third and fourth place'],
    ['ac me', 'DNS label'],
  ])('refuses %j: %s', (name, problem) => {
    expect(tenantNameProblem(name)).toContain(problem);
  });
});
