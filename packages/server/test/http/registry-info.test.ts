import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request, startRegistry, type TestRegistry } from '@pkg/testkit';

let unnamed: TestRegistry;
let named: TestRegistry;

beforeAll(async () => {
  [unnamed, named] = await Promise.all([
    startRegistry(),
    startRegistry({ settings: { registryName: 'Studio Packages', readAccess: 'token' } }),
  ]);
});
afterAll(async () => {
  await Promise.all([unnamed?.close(), named?.close()]);
});

describe('GET /-/pkg/registry', () => {
  it('answers the host of the registry with its port when registryName is not set', async () => {
    const res = await request<{ name: string }>(`${unnamed.url}/-/pkg/registry`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ name: new URL(unnamed.url).host });
    expect(res.body.name).toMatch(/^127\.0\.0\.1:\d+$/);
  });

  it('answers the registryName setting, without a token even where reading needs one', async () => {
    const res = await request<{ name: string }>(`${named.url}/-/pkg/registry`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ name: 'Studio Packages' });
    // The rest of that registry does need a token: the name is the one open thing.
    expect((await request(`${named.url}/com.acme.anything`)).status).toBe(401);
  });
});
