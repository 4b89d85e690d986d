/**
 * The request steps are one list (src/http/request-steps.ts) that every request runs, whatever
 * route it reaches (src/http/exchange.ts); routes add only their own guards and send hooks,
 * which these tests name.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startRegistry, type TestRegistry } from '@pkg/testkit';

describe('the request pipeline', () => {
  let registry: TestRegistry;

  beforeAll(async () => {
    registry = await startRegistry({ captureLogs: true, settings: { rateLimitAnonymous: 1000 } });
  });
  afterAll(async () => {
    await registry.close();
  });

  /** Log lines of requests since `mark` (they go out once per turn of the event loop). */
  function requestLinesSince(mark: number): { url: string; status: number }[] {
    return registry.logLines
      .slice(mark)
      .join('')
      .split('\n')
      .filter((line) => line.includes('"msg":"request"'))
      .map((line) => JSON.parse(line) as { url: string; status: number });
  }

  it('lists the steps in the order every request runs them', () => {
    const names = (steps: readonly { name: string }[]) => steps.map((step) => step.name);
    expect(names(registry.pipeline.beforeHandler)).toEqual([
      'refuseWhileDraining',
      'requestContext',
      'rateLimit',
      'readAccess',
      'tokenLimits',
    ]);
    expect(names(registry.pipeline.beforeSend)).toEqual(['closeWhileDraining']);
    expect(names(registry.pipeline.afterResponse)).toEqual(['responseDone', 'requestLog', 'requestMetrics']);
  });

  it('gives routes only their own guards and send hooks: none on the reads', () => {
    const app = registry.app;
    const names = (list: readonly { name: string }[]) => list.map((item) => item.name);
    const read = app.routeOf('GET', '/:name')!;
    expect([names(read.guards), names(read.onSend), names(read.onError)]).toEqual([[], [], []]);
    const publish = app.routeOf('PUT', '/:name')!;
    expect(names(publish.guards)).toEqual(['uplinkWriteGuard']);
    expect(names(publish.onSend)).toEqual(['recordChange']);
    expect(names(publish.onError)).toEqual(['noteRefusal']);
    const home = app.routeOf('GET', '/')!;
    expect(names(home.onSend)).toEqual(['webPageHeaders']);
    expect(home.config).toEqual({ openAccess: true, budget: 'page' });
    // Every GET answers HEAD too, but the tarballs, whose HEAD is a route of its own.
    expect(app.routeOf('HEAD', '/:name')?.head).toBe(true);
    expect(app.routeOf('HEAD', '/:name/-/:file')?.head).toBe(false);
    expect(app.routeList()).toEqual(expect.arrayContaining(['GET /:name', 'PUT /:name', 'GET /-/whoami', 'GET /']));
  });

  it('runs for a request no route matches, in process or on a socket', async () => {
    const mark = registry.logLines.length;
    const res = await registry.inject({ method: 'GET', url: '/com.acme.nothing-here' });
    expect(res.statusCode).toBe(404);
    expect(res.headers['x-ratelimit-limit']).toBe('1000');
    const unrouted = await fetch(`${registry.url}/-/no/such/route`, { method: 'POST' });
    expect(unrouted.status).toBe(404);
    expect(await unrouted.json()).toMatchObject({ code: 'NOT_FOUND', details: 'No route for POST /-/no/such/route' });
    expect(unrouted.headers.get('x-ratelimit-limit')).toBe('1000');
    await vi.waitFor(() =>
      expect(requestLinesSince(mark)).toMatchObject([
        { url: '/com.acme.nothing-here', status: 404 },
        { url: '/-/no/such/route', status: 404 },
      ]),
    );
  });

  it('answers a URL it cannot route with 400, logged, without echoing it', async () => {
    const mark = registry.logLines.length;
    const badEncoding = await fetch(`${registry.url}/com.acme.x%E0%A4%A`);
    expect(badEncoding.status).toBe(400);
    expect(await badEncoding.json()).toMatchObject({ details: 'The URL is not valid (bad percent-encoding)' });
    const tooLong = await fetch(`${registry.url}/${'a'.repeat(501)}/-/file.tgz`);
    expect(tooLong.status).toBe(400);
    expect(await tooLong.json()).toMatchObject({ details: 'A path segment is too long' });
    await vi.waitFor(() => expect(requestLinesSince(mark).map((line) => line.status)).toEqual([400, 400]));
  });
});
