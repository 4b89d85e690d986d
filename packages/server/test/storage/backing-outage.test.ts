import { afterEach, describe, expect, it } from 'vitest';
import {
  freshPostgresSchema,
  freshRedisPrefix,
  loginUser,
  publishVersion,
  request,
  startRegistry,
  startS3Server,
  startTcpProxy,
  testPostgresUrl,
  testRedisUrl,
  type TcpProxy,
  type TestRegistry,
} from '@pkg/testkit';

/** The URL with its host and port replaced by the proxy's. */
function through(url: string, proxy: TcpProxy): string {
  const parsed = new URL(url);
  parsed.hostname = '127.0.0.1';
  parsed.port = String(proxy.port);
  return parsed.toString();
}

async function eventually<T>(probe: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  for (;;) {
    const value = await probe();
    if (done(value)) return value;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe.skipIf(!testPostgresUrl || !testRedisUrl)(
  'a backing service out of reach: 503 with Retry-After, then recovery by itself',
  () => {
    async function start(): Promise<{ registry: TestRegistry; postgres: TcpProxy; s3: TcpProxy; redis: TcpProxy }> {
      const schema = freshPostgresSchema();
      const s3Server = await startS3Server();
      const redisPrefix = freshRedisPrefix();
      cleanups.push(
        () => schema.drop(),
        () => s3Server.close(),
        () => redisPrefix.drop(),
      );
      const pgUrl = new URL(schema.url);
      const postgres = await startTcpProxy(pgUrl.hostname, Number(pgUrl.port || 5432));
      const s3Endpoint = new URL(s3Server.endpoint);
      const s3 = await startTcpProxy(s3Endpoint.hostname, Number(s3Endpoint.port));
      const redisUrl = new URL(redisPrefix.url);
      const redis = await startTcpProxy(redisUrl.hostname, Number(redisUrl.port || 6379));
      cleanups.push(
        () => postgres.close(),
        () => s3.close(),
        () => redis.close(),
      );
      const storage = s3Server.url.replace(
        encodeURIComponent(s3Server.endpoint),
        encodeURIComponent(`http://127.0.0.1:${s3.port}`),
      );
      const registry = await startRegistry({
        profile: 'embedded',
        captureLogs: true,
        settings: { database: through(schema.url, postgres), storage, redis: through(redisPrefix.url, redis) },
      });
      cleanups.push(() => registry.close());
      return { registry, postgres, s3, redis };
    }

    it('PostgreSQL down: requests that need it get 503 + Retry-After naming the database; health says so; it recovers', async () => {
      const { registry, postgres } = await start();
      const token = await loginUser(registry.url, 'alice');
      expect((await publishVersion(registry.url, token, 'com.example.outage', '1.0.0')).status).toBe(201);

      await postgres.cut();
      const refused = await request(`${registry.url}/-/user/org.couchdb.user:bob`, {
        method: 'PUT',
        body: { name: 'bob', password: 'secret-password', email: 'bob@example.com' },
      });
      expect(refused.status).toBe(503);
      expect(refused.headers.get('retry-after')).toBe('5');
      expect(refused.body).toEqual({
        error: "The registry's database is unreachable; retry shortly",
        code: 'SERVICE_UNAVAILABLE',
        details: "The registry's database is unreachable; retry shortly",
      });
      const health = await request(`${registry.url}/-/health`);
      expect(health.status).toBe(503);
      expect(health.body.checks.database).toMatchObject({ ok: false, state: 'down' });
      expect(health.body.checks.database.error).toMatch(
        /^database: (connection refused|the connection was dropped|no connection could be had in time)/,
      );
      expect(registry.logLines.join('')).not.toContain('"unhandled error"');
      expect(registry.logLines.some((line) => line.includes('answered 503: a backing service is unreachable'))).toBe(true);

      await postgres.restore();
      const created = await eventually(
        () =>
          request(`${registry.url}/-/user/org.couchdb.user:bob`, {
            method: 'PUT',
            body: { name: 'bob', password: 'secret-password', email: 'bob@example.com' },
          }),
        (res) => res.status !== 503,
      );
      expect(created.status).toBe(201);
      expect((await request(`${registry.url}/-/health`)).body.checks.database.state).toBe('up');
    });

    it('the S3 store down: a tarball download gets 503 naming the tarball storage; it recovers', async () => {
      const { registry, s3 } = await start();
      const token = await loginUser(registry.url, 'alice');
      expect((await publishVersion(registry.url, token, 'com.example.blobs', '1.0.0')).status).toBe(201);
      const tarball = `${registry.url}/com.example.blobs/-/com.example.blobs-1.0.0.tgz`;
      expect((await fetch(tarball)).status).toBe(200);

      await s3.cut();
      const refused = await request(tarball);
      expect(refused.status).toBe(503);
      expect(refused.headers.get('retry-after')).toBe('5');
      expect(refused.body.error).toBe("The registry's tarball storage is unreachable; retry shortly");
      const health = await request(`${registry.url}/-/health`);
      expect(health.body.checks.storage).toMatchObject({ ok: false, state: 'down' });
      expect(health.body.checks.storage.error).toMatch(/^tarball storage: /);

      await s3.restore();
      expect(
        (
          await eventually(
            () => fetch(tarball),
            (res) => res.status !== 503,
          )
        ).status,
      ).toBe(200);
    });

    it('Redis down: health names it in operator words, not the driver internals; the node keeps serving', async () => {
      const { registry, redis } = await start();
      await redis.cut();
      const health = await eventually(
        () => request(`${registry.url}/-/health`),
        (res) => res.body.status === 'degraded',
      );
      expect(health.status).toBe(200);
      expect(health.body.checks.redis).toMatchObject({ ok: false, state: 'down' });
      expect(health.body.checks.redis.error).not.toMatch(/Stream isn't writeable|enableOfflineQueue/);
      expect(health.body.checks.redis.error).toMatch(/^Redis: /);
      expect((await request(`${registry.url}/-/ping`)).status).toBe(200);
      await redis.restore();
      await eventually(
        () => request(`${registry.url}/-/health`),
        (res) => res.body.status === 'ok',
      );
    });
  },
);
