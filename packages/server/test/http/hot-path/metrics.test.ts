/** The hot path counts its requests under the route patterns fastify gives them. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, closeTarget, countsSince, eventually, HOT, scrape, send, startGlobalRegistry, type Target } from './harness.js';

describe('on the global registry', () => {
  let target: Target;
  let token: string;

  beforeAll(async () => {
    ({ target, token } = await startGlobalRegistry());
  });
  afterAll(async () => {
    await closeTarget(target);
  });

  it('GET /-/metrics shows the hot path requests under their route patterns', async () => {
    const before = await scrape(target);
    await send(target, { path: `/${HOT}` });
    await send(target, { path: '/-/whoami', headers: bearer(token) });
    await send(target, { path: `/${HOT}/-/${HOT}-1.0.0.tgz` });
    const delta = await eventually(
      async () => countsSince(before, await scrape(target)),
      (d) => Object.keys(d).length >= 3,
    );
    expect(delta).toEqual({
      'requests GET /:name 200': 1,
      'requests GET /-/whoami 200': 1,
      'requests GET /:name/-/:file 200': 1,
    });
  });
});
