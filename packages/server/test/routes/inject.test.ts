/**
 * The app on memory storage, requests sent in process with `BuiltApp.inject()`: routes tested
 * without a socket or a database. It goes where a socket's request goes, so every route answers it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, createMemoryStorage, loadConfig, serverDeps, type BuiltApp, type Storage } from '@pkg/server';
import { publishBody } from '@pkg/testkit';

let storage: Storage;
let built: BuiltApp;

beforeAll(async () => {
  storage = createMemoryStorage();
  const config = loadConfig({ flags: { logLevel: 'silent' }, env: {} });
  built = await buildApp(serverDeps(config, storage));
  await built.app.ready();
});
afterAll(async () => {
  await built.app.close();
  await storage.close();
});

async function login(name: string): Promise<string> {
  const res = await built.inject({
    method: 'PUT',
    url: `/-/user/org.couchdb.user:${name}`,
    payload: { name, password: 'correct horse battery' },
  });
  expect(res.statusCode).toBe(201);
  return res.json<{ token: string }>().token;
}

describe('routes on memory storage', () => {
  it('publishes, then serves the document, the version and the tarball', async () => {
    const token = await login('ada');
    const { body, tarball } = publishBody('com.acme.injected', '1.0.0');
    const published = await built.inject({
      method: 'PUT',
      url: '/com.acme.injected',
      headers: { authorization: `Bearer ${token}` },
      payload: body,
    });
    expect(published.statusCode, published.body).toBe(201);

    const doc = await built.inject({ method: 'GET', url: '/com.acme.injected' });
    expect(doc.statusCode).toBe(200);
    const document = doc.json<{ versions: Record<string, { dist: { tarball: string } }> }>();
    expect(Object.keys(document.versions)).toEqual(['1.0.0']);

    const version = await built.inject({ method: 'GET', url: '/com.acme.injected/1.0.0' });
    expect(version.json()).toMatchObject({ name: 'com.acme.injected', version: '1.0.0' });

    const file = await built.inject({ method: 'GET', url: new URL(document.versions['1.0.0']!.dist.tarball).pathname });
    expect(file.statusCode).toBe(200);
    expect(file.rawPayload.equals(tarball)).toBe(true);
  });

  it('answers whoami for a token and 401 without one', async () => {
    const token = await login('bob');
    const me = await built.inject({ method: 'GET', url: '/-/whoami', headers: { authorization: `Bearer ${token}` } });
    expect(me.json()).toMatchObject({ username: 'bob' });
    const anonymous = await built.inject({ method: 'GET', url: '/-/whoami' });
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.json()).toMatchObject({ code: 'UNAUTHORIZED' });
  });

  it('finds a published package by search', async () => {
    const res = await built.inject({ method: 'GET', url: '/-/v1/search?text=injected' });
    expect(res.statusCode).toBe(200);
    expect(res.json<{ objects: { package: { name: string } }[] }>().objects.map((o) => o.package.name)).toEqual([
      'com.acme.injected',
    ]);
  });

  it('answers the hot reads in process, each with its validators', async () => {
    const urls = ['/com.acme.injected', '/com.acme.never-published', '/-/v1/search?text=injected'];
    const answers = [];
    for (const url of urls) answers.push(await built.inject({ method: 'GET', url }));
    expect(answers.map((res) => res.statusCode)).toEqual([200, 404, 200]);
    expect(answers[0]!.headers.etag).toMatch(/^"/);
    expect(answers[0]!.headers['cache-control']).toBe('public, max-age=300');
    expect(answers[1]!.json()).toMatchObject({ code: 'NOT_FOUND' });
    // A second read of the document is answered from the document cache: the same bytes and tag.
    const again = await built.inject({ method: 'GET', url: urls[0]! });
    expect(again.headers.etag).toBe(answers[0]!.headers.etag);
    expect(again.body).toBe(answers[0]!.body);
    const revalidated = await built.inject({
      method: 'GET',
      url: urls[0]!,
      headers: { 'if-none-match': String(again.headers.etag) },
    });
    expect(revalidated.statusCode).toBe(304);
    expect(revalidated.body).toBe('');
  });

  it('answers bad input with the error shape, never 500', async () => {
    const res = await built.inject({ method: 'GET', url: '/Not.A.Name' });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toMatchObject({ code: expect.any(String), error: expect.any(String) });
  });
});
