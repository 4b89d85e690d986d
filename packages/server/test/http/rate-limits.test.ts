import { randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { TenantAdmin } from '@pkg/server';
import { loginUser, publishBody, registryHost, request, startRegistry, storeSnapshot, type TestRegistry } from '@pkg/testkit';

let registry: TestRegistry | undefined;
afterEach(async () => {
  await registry?.close();
  registry = undefined;
});

function limitHeaders(res: { headers: Headers }) {
  return {
    limit: res.headers.get('x-ratelimit-limit'),
    remaining: res.headers.get('x-ratelimit-remaining'),
    reset: res.headers.get('x-ratelimit-reset'),
  };
}

describe('anonymous limit per client IP', () => {
  it('counts down in X-RateLimit-* and answers 429 with Retry-After past the limit', async () => {
    registry = await startRegistry({ settings: { rateLimitAnonymous: 3 } });
    const before = Math.floor(Date.now() / 1000);
    const remaining: string[] = [];
    let reset: number | undefined;
    for (let i = 0; i < 3; i++) {
      const res = await request(`${registry.url}/-/ping`);
      expect(res.status).toBe(200);
      const headers = limitHeaders(res);
      expect(headers.limit).toBe('3');
      remaining.push(headers.remaining!);
      reset ??= Number(headers.reset);
      expect(Number(headers.reset)).toBe(reset); // one fixed window
    }
    expect(remaining).toEqual(['2', '1', '0']);
    // Reset is the Unix time in seconds at which the hour that began with the first request ends.
    expect(reset).toBeGreaterThanOrEqual(before + 3600);
    expect(reset).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000) + 3600);

    const over = await request(`${registry.url}/-/ping`);
    expect(over.status).toBe(429);
    expect(over.body).toEqual({
      error: expect.stringMatching(/^anonymous limit of 3 requests per hour per IP exceeded; retry in \d+ s$/),
      code: 'RATE_LIMIT_EXCEEDED',
      details: expect.stringMatching(/^anonymous limit of 3 requests per hour per IP exceeded; retry in \d+ s$/),
    });
    const retryAfter = Number(over.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(3600);
    expect(limitHeaders(over)).toEqual({ limit: '3', remaining: '0', reset: String(reset) });
  });

  it('error responses carry the headers too', async () => {
    registry = await startRegistry({ settings: { rateLimitAnonymous: 10 } });
    for (const [path, status] of [
      ['/-/whoami', 401],
      ['/-/no/such/route', 404],
    ] as const) {
      const res = await request(`${registry.url}${path}`);
      expect(res.status).toBe(status);
      expect(limitHeaders(res).limit).toBe('10');
    }
    const bad = await request(`${registry.url}/-/user/org.couchdb.user:x`, {
      method: 'PUT',
      rawBody: '{',
      headers: { 'content-type': 'application/json' },
    });
    expect(bad.status).toBe(400);
    expect(limitHeaders(bad)).toMatchObject({ limit: '10', remaining: '7' });
  });

  it('ignores X-Forwarded-For without a trusted proxy: a caller cannot dodge the limit', async () => {
    registry = await startRegistry({ settings: { rateLimitAnonymous: 2 } });
    const statuses = [];
    for (let i = 0; i < 3; i++) {
      statuses.push((await request(`${registry.url}/-/ping`, { headers: { 'x-forwarded-for': `10.0.0.${i}` } })).status);
    }
    expect(statuses).toEqual([200, 200, 429]);
  });

  it('behind a trusted proxy counts per X-Forwarded-For client', async () => {
    registry = await startRegistry({ settings: { rateLimitAnonymous: 2, trustProxy: '127.0.0.1' } });
    const as = (ip: string) => request(`${registry!.url}/-/ping`, { headers: { 'x-forwarded-for': ip } });
    expect([(await as('10.0.0.1')).status, (await as('10.0.0.1')).status, (await as('10.0.0.1')).status]).toEqual([
      200, 200, 429,
    ]);
    expect((await as('10.0.0.2')).status).toBe(200);
  });
});

describe('authenticated limit per user', () => {
  it('counts a user across its tokens, apart from other users and from anonymous requests', async () => {
    registry = await startRegistry({ settings: { rateLimitAuthenticated: 3, rateLimitAnonymous: 50 } });
    // Logging in is an anonymous request.
    const first = await loginUser(registry.url, 'busy');
    const second = await loginUser(registry.url, 'busy');
    const other = await loginUser(registry.url, 'calm');

    const a = await request(`${registry.url}/-/whoami`, { token: first });
    expect(limitHeaders(a)).toMatchObject({ limit: '3', remaining: '2' });
    expect((await request(`${registry.url}/-/whoami`, { token: second })).headers.get('x-ratelimit-remaining')).toBe('1');
    expect((await request(`${registry.url}/-/whoami`, { token: first })).status).toBe(200);
    const over = await request(`${registry.url}/-/whoami`, { token: second });
    expect(over.status).toBe(429);
    expect(over.body.details).toMatch(/^authenticated limit of 3 requests per hour per user exceeded/);

    expect((await request(`${registry.url}/-/whoami`, { token: other })).status).toBe(200);
    const anonymous = await request(`${registry.url}/-/ping`);
    expect(anonymous.status).toBe(200);
    expect(limitHeaders(anonymous).limit).toBe('50');
  });
});

describe('publish limit per user', () => {
  it('counts PUT /<package> with a tarball attachment, not other package writes', async () => {
    registry = await startRegistry({ settings: { rateLimitPublish: 2, rateLimitAuthenticated: 100 } });
    const token = await loginUser(registry.url, 'publisher');
    const publish = (version: string) =>
      request(`${registry!.url}/com.example.limited`, {
        method: 'PUT',
        token,
        body: publishBody('com.example.limited', version).body,
      });

    const one = await publish('1.0.0');
    expect(one.status).toBe(201);
    expect(limitHeaders(one)).toMatchObject({ limit: '2', remaining: '1' });
    // A write without attachments (how npm deprecates) is not a publish.
    const deprecate = await request(`${registry.url}/com.example.limited`, {
      method: 'PUT',
      token,
      body: { _id: 'com.example.limited', name: 'com.example.limited', versions: {} },
    });
    expect(limitHeaders(deprecate).limit).toBe('100');
    expect((await publish('1.0.1')).status).toBe(201);

    const over = await publish('1.0.2');
    expect(over.status).toBe(429);
    expect(over.body.details).toMatch(/^publish limit of 2 publishes per hour per user exceeded/);
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);
    const stored = await registry.storage.packages.package('', 'com.example.limited').read();
    expect(Object.keys(stored!.document.versions).sort()).toEqual(['1.0.0', '1.0.1']);
    // Other requests of the user are still within their limit.
    expect((await request(`${registry.url}/-/whoami`, { token })).status).toBe(200);
  });

  it('refuses a publisher over the limit while the body is still on its way, and stores nothing', async () => {
    registry = await startRegistry({ settings: { rateLimitPublish: 1, rateLimitAuthenticated: 100 } });
    const token = await loginUser(registry.url, 'uploader');
    const name = 'com.example.early';
    expect(
      (await request(`${registry.url}/${name}`, { method: 'PUT', token, body: publishBody(name, '1.0.0').body })).status,
    ).toBe(201);
    const before = await storeSnapshot(registry, [name]);

    // A real publish of a 1 MB tarball: its headers and the first 64 KiB of its body are sent,
    // and nothing more until the answer has come.
    const { body } = publishBody(name, '1.0.1', { files: [{ path: 'package/big.bin', content: randomBytes(1_000_000) }] });
    const bytes = Buffer.from(JSON.stringify(body));
    const { hostname, port } = new URL(registry.url);
    const answer = await new Promise<{ status: number | undefined; body: string; retryAfter: string | undefined; sent: number }>(
      (resolve, reject) => {
        const req = httpRequest({
          host: hostname,
          port,
          method: 'PUT',
          path: `/${name}`,
          headers: {
            authorization: `Bearer ${token}`,
            'content-type': 'application/json',
            'content-length': String(bytes.length),
          },
        });
        const sent = 64 * 1024;
        req.on('response', (res) => {
          let text = '';
          res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
          res.on('end', () => {
            req.destroy();
            resolve({ status: res.statusCode, body: text, retryAfter: res.headers['retry-after'], sent });
          });
        });
        req.on('error', reject);
        req.write(bytes.subarray(0, sent));
      },
    );
    expect(answer.sent).toBeLessThan(bytes.length);
    expect(answer.status).toBe(429);
    expect(JSON.parse(answer.body)).toMatchObject({ code: 'RATE_LIMIT_EXCEEDED' });
    expect((JSON.parse(answer.body) as { details: string }).details).toMatch(
      /^publish limit of 1 publishes? per hour per user exceeded; retry in \d+ s$/,
    );
    expect(Number(answer.retryAfter)).toBeGreaterThan(0);
    expect(await storeSnapshot(registry, [name])).toEqual(before);
  });

  it('does not count refused publishes (4xx): bad documents do not use up the hour', async () => {
    registry = await startRegistry({ settings: { rateLimitPublish: 3, rateLimitAuthenticated: 100 } });
    const token = await loginUser(registry.url, 'clumsy');
    const name = 'com.example.refused';
    const put = (body: unknown) => request(`${registry!.url}/${name}`, { method: 'PUT', token, body });
    const good = (version: string) => put(publishBody(name, version).body);
    const broken = (version: string) => {
      const { body } = publishBody(name, version);
      body['dist-tags'] = { latest: '9.9.9' };
      return put(body);
    };

    expect((await good('1.0.0')).status).toBe(201);
    for (let i = 0; i < 4; i++) expect((await broken(`1.1.${i}`)).status).toBe(422);
    expect((await good('1.0.0')).status).toBe(200); // an idempotent retry is a publish that succeeded
    const second = await good('1.0.1');
    expect(second.status).toBe(201);
    expect(limitHeaders(second)).toMatchObject({ limit: '3', remaining: '0' });
    // Over the limit: refused, and that refusal is not counted either.
    const over = await good('1.0.2');
    expect(over.status).toBe(429);
    expect((await broken('1.2.0')).status).toBe(429);
    const stored = await registry.storage.packages.package('', name).read();
    expect(Object.keys(stored!.document.versions).sort()).toEqual(['1.0.0', '1.0.1']);
  });
});

describe('limits per registry', () => {
  it('each tenant counts apart and may set its own limits', async () => {
    registry = await startRegistry({ settings: { rateLimitAnonymous: 2, registryDomain: 'registry.test' } });
    const admin = new TenantAdmin(registry.storage);
    await admin.create('a', {});
    await admin.create('strict', { rateLimitAnonymous: 1 });
    await admin.create('open', { rateLimitAnonymous: 0 });
    const global = registryHost(registry.url, 'registry.test');
    const a = registryHost(registry.url, 'a.registry.test');
    const strict = registryHost(registry.url, 'strict.registry.test');
    const open = registryHost(registry.url, 'open.registry.test');

    expect([(await global.request('/-/ping')).status, (await global.request('/-/ping')).status]).toEqual([200, 200]);
    expect((await global.request('/-/ping')).status).toBe(429);
    // Same IP, another registry: its own counter.
    expect((await a.request('/-/ping')).status).toBe(200);
    expect((await a.request('/-/ping')).headers.get('x-ratelimit-remaining')).toBe('0');

    const s1 = await strict.request('/-/ping');
    expect(limitHeaders(s1)).toMatchObject({ limit: '1', remaining: '0' });
    expect((await strict.request('/-/ping')).status).toBe(429);

    for (let i = 0; i < 5; i++) {
      const res = await open.request('/-/ping');
      expect(res.status).toBe(200);
      expect(res.headers.get('x-ratelimit-limit')).toBeNull();
    }
  });
});

describe('limits set to 0', () => {
  it('disable counting and the headers (the test default)', async () => {
    registry = await startRegistry();
    for (let i = 0; i < 5; i++) {
      const res = await request(`${registry.url}/-/ping`);
      expect(res.status).toBe(200);
      expect(res.headers.get('x-ratelimit-limit')).toBeNull();
    }
  });
});

describe('login throttling', () => {
  const attempt = (name: string, password: string, ip: string) =>
    request(`${registry!.url}/-/user/org.couchdb.user:${name}`, {
      method: 'PUT',
      body: { name, password },
      headers: { 'x-forwarded-for': ip },
    });

  it('after too many failures of one account from one address, even the right password gets 429 there', async () => {
    registry = await startRegistry({ settings: { loginFailureLimit: 3, trustProxy: 'true' } });
    await loginUser(registry.url, 'target', 'right-password');
    for (let i = 0; i < 3; i++) expect((await attempt('target', `guess-${i}`, '10.1.0.1')).status).toBe(401);
    const blocked = await attempt('target', 'right-password', '10.1.0.1');
    expect(blocked.status).toBe(429);
    expect(blocked.body.code).toBe('RATE_LIMIT_EXCEEDED');
    expect(blocked.body.details).toMatch(/^login limit of 3 failed attempts per account per 900 s exceeded; retry in \d+ s$/);
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(Number(blocked.headers.get('retry-after'))).toBeLessThanOrEqual(900);
    // The same account from elsewhere: nobody can lock an account out from their own address.
    expect((await attempt('target', 'right-password', '10.1.0.2')).status).toBe(201);
    // Another account from the same address (an office behind one NAT) logs in and signs up.
    await loginUser(registry.url, 'colleague', 'colleague-pw');
    expect((await attempt('colleague', 'colleague-pw', '10.1.0.1')).status).toBe(201);
    expect((await attempt('newcomer', 'newcomer-pw', '10.1.0.1')).status).toBe(201);
  });

  it('failures spread over many accounts from one address stop at the per-address limit', async () => {
    registry = await startRegistry({
      settings: { loginFailureLimit: 3, loginFailureLimitPerAddress: 5, trustProxy: 'true' },
    });
    for (const name of ['victim', 'other', 'third']) await loginUser(registry.url, name, `${name}-password`);
    // Two failures per account stay under the pair limit; the address's count still grows.
    for (const name of ['victim', 'victim', 'other', 'other', 'third']) {
      expect((await attempt(name, 'nope', '10.2.0.1')).status).toBe(401);
    }
    const blocked = await attempt('someone-else', 'whatever', '10.2.0.1');
    expect(blocked.status).toBe(429);
    expect(blocked.body.details).toMatch(/^login limit of 5 failed attempts per client address per 900 s exceeded/);
    expect((await attempt('victim', 'victim-password', '10.2.0.1')).status).toBe(429);
    expect((await attempt('someone-else', 'someone-elses-passphrase', '10.2.0.2')).status).toBe(201);
  });

  it('a successful login clears the count of that account from that address', async () => {
    registry = await startRegistry({ settings: { loginFailureLimit: 3, trustProxy: 'true' } });
    await loginUser(registry.url, 'forgetful', 'real-password');
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < 2; i++) expect((await attempt('forgetful', 'typo', '10.3.0.1')).status).toBe(401);
      expect((await attempt('forgetful', 'real-password', '10.3.0.1')).status).toBe(201);
    }
  });

  it('counts sign-up refusals on a closed registry as failures', async () => {
    registry = await startRegistry({ settings: { loginFailureLimit: 5, loginFailureLimitPerAddress: 2, signup: false } });
    for (const name of ['probe1', 'probe2']) {
      expect(
        (await request(`${registry.url}/-/user/org.couchdb.user:${name}`, { method: 'PUT', body: { name, password: 'x' } }))
          .status,
      ).toBe(401);
    }
    const res = await request(`${registry.url}/-/user/org.couchdb.user:probe3`, {
      method: 'PUT',
      body: { name: 'probe3', password: 'x' },
    });
    expect(res.status).toBe(429);
  });
});
