import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loginUser, request, spawnRegistry, startRegistry, type SpawnedRegistry } from '@pkg/testkit';

// Spawns the built binary (run `npm run build` first): the log is the process's real stdout.
let server: SpawnedRegistry;
beforeAll(async () => {
  server = await spawnRegistry();
});
afterAll(async () => {
  await server?.cleanup();
});

describe('request log', () => {
  it('writes exactly one JSON line per request and never a token or a password', async () => {
    const secrets: string[] = [];
    let requests = 0;
    const call = async (url: string, init: Parameters<typeof request>[1] = {}) => {
      requests++;
      return request(`${server.url}${url}`, init);
    };
    const login = async (name: string, password: string) => {
      secrets.push(password);
      return call(`/-/user/org.couchdb.user:${name}`, {
        method: 'PUT',
        body: { name, password, email: `${name}@example.com` },
      });
    };

    const first = await login('logger', 'correct horse battery staple');
    expect(first.status).toBe(201);
    const token: string = first.body.token;
    secrets.push(token);
    const second = await login('logger', 'correct horse battery staple');
    secrets.push(second.body.token);

    expect((await login('logger', 'wrong-password-1')).status).toBe(401);
    expect((await login('logger', 'wrong-password-2')).status).toBe(401);
    expect((await call('/-/whoami', { token })).status).toBe(200);
    expect((await call('/-/whoami', { token: 'made-up-token-value-123456' })).status).toBe(401);
    secrets.push('made-up-token-value-123456');
    expect((await call('/-/user/org.couchdb.user:logger', { token })).status).toBe(200);
    // Tokens in places a careless client might put them: a query string, Basic auth, a bad path.
    expect((await call(`/-/whoami?token=${token}`)).status).toBe(401);
    const basic = Buffer.from(`logger:correct horse battery staple`).toString('base64');
    secrets.push(basic);
    expect((await call('/-/whoami', { headers: { authorization: `Basic ${basic}` } })).status).toBe(200);
    const wrongBasic = Buffer.from(`logger:wrong-password-3`).toString('base64');
    secrets.push(wrongBasic, 'wrong-password-3');
    expect((await call('/-/whoami', { headers: { authorization: `Basic ${wrongBasic}` } })).status).toBe(401);
    expect((await call(`/-/user/token/${token}/extra`)).status).toBe(404);
    // URLs refused before routing: a bad percent-encoding, a segment over the length limit.
    expect((await call(`/-/user/token/${token}%E0%A4%A`, { method: 'DELETE' })).status).toBe(400);
    expect((await call(`/-/user/token/${token}${'x'.repeat(500)}`, { method: 'DELETE' })).status).toBe(400);
    // Logout carries the token in the URL path.
    const out = await call(`/-/user/token/${token}`, { method: 'DELETE' });
    expect(out.status).toBe(200);
    expect((await call(`/-/user/token/${second.body.token}`, { method: 'DELETE' })).status).toBe(200);

    await server.stop();
    const log = server.stdout();
    for (const secret of secrets) {
      expect(log).not.toContain(secret);
      expect(log).not.toContain(encodeURIComponent(secret));
    }
    const lines = log.split('\n').filter((line) => line.length > 0);
    const entries = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    const requestLines = entries.filter((e) => e.msg === 'request');
    expect(requestLines).toHaveLength(requests);
    for (const entry of requestLines) {
      expect(entry).toMatchObject({ level: 30, method: expect.any(String), url: expect.any(String), status: expect.any(Number) });
      expect(typeof entry.ms).toBe('number');
      expect(entry.ip).toBe('127.0.0.1');
    }
    expect(requestLines.filter((e) => String(e.url).startsWith('/-/user/token/'))).toHaveLength(5);
    expect(requestLines.find((e) => e.url === '/-/whoami' && e.status === 200)?.user).toBe('logger');
  });
});

describe('the test kit guards every test run against tokens in the log', () => {
  it('closing a test registry fails when a token a test received appears in its log', async () => {
    const registry = await startRegistry();
    const token = await loginUser(registry.url, 'guarded');
    expect(registry.logLines.length).toBeGreaterThan(0);
    registry.logLines.push(JSON.stringify({ msg: 'oops', token }));
    await expect(registry.close()).rejects.toThrow("1 issued token(s) appear in the registry's log");
  });
});
