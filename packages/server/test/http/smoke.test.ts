import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request, startRegistry, type TestRegistry } from '@pkg/testkit';

let registry: TestRegistry;
beforeAll(async () => {
  registry = await startRegistry();
});
afterAll(async () => {
  await registry.close();
});

describe('server basics', () => {
  it('answers /-/ping with {}', async () => {
    const res = await request(`${registry.url}/-/ping`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({});
  });

  it('answers unknown routes 404 NOT_FOUND with the error shape', async () => {
    const res = await request(`${registry.url}/-/nothing/here`, { method: 'POST', body: {} });
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ code: 'NOT_FOUND', error: 'No route for POST /-/nothing/here' });
    expect(res.body.details).toBe(res.body.error);
  });
});
