/**
 * The HTTP layer on its own (src/http/http-app.ts, exchange.ts, routes.ts, request-body.ts):
 * routes declared in groups, the lifecycle's order, bodies and their refusals, HEAD, and what a
 * handler may give back. The registry's routes are tested through it everywhere else.
 */
import { gzipSync } from 'node:zlib';
import pino from 'pino';
import { ProtocolError } from '@pkg/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClientAddressing, proxyTrustOf } from '../../src/http/client-address.js';
import { HttpApp } from '../../src/http/http-app.js';
import type { RequestPipeline } from '../../src/http/request-steps.js';
import { apiErrorHandler, routeNotFound } from '../../src/plugins/error-handler.js';

/** What ran, in order, for the lifecycle test. */
const trace: string[] = [];

const pipeline: RequestPipeline = {
  beforeHandler: [
    {
      name: 'first',
      run: (request) => {
        trace.push(`step ${request.routeOptions.url ?? 'unmatched'}`);
        return undefined;
      },
    },
  ],
  beforeSend: [{ name: 'mark', run: (reply) => void reply.header('x-step', 'yes') }],
  afterResponse: [{ name: 'after', run: (request, reply) => void trace.push(`after ${request.method} ${reply.statusCode}`) }],
};

function newApp(): HttpApp {
  const log = pino({ level: 'silent' });
  return new HttpApp({
    log,
    scope: { addressing: new ClientAddressing(proxyTrustOf(false)), log },
    pipeline,
    bodyLimit: 256,
    nextRequestId: () => 'req-test',
    errorHandler: apiErrorHandler,
    notFound: routeNotFound,
  });
}

let app: HttpApp;

beforeAll(async () => {
  app = newApp();
  const { routes } = app;
  routes.onRoute((route) => {
    if (route.method === 'POST')
      route.guards.push((request) =>
        request.headers['x-refuse'] ? new ProtocolError('FORBIDDEN', 'refused by guard') : undefined,
      );
  });
  routes.get('/plain/:id', (request) => ({ id: (request.params as { id: string }).id, q: request.query }));
  routes.get('/text', (_request, reply) => reply.type('text/plain; charset=utf-8').send('hello'));
  routes.get('/later', async (_request, reply) => {
    await new Promise((resolve) => setTimeout(resolve, 1));
    return reply.code(202).send({ later: true });
  });
  routes.get('/nothing', async () => undefined);
  routes.post('/echo', (request) => ({ body: request.body }));
  routes.post('/small', { bodyLimit: 8 }, (request) => ({ body: request.body }));
  const group = routes.group({
    config: { openAccess: true },
    onSend: async (_request, reply, payload) => {
      trace.push('group send');
      reply.header('x-group', 'yes');
      return payload;
    },
    errorHandler: (err, _request, reply) => reply.code(418).type('text/plain; charset=utf-8').send(`group: ${err.message}`),
    parsers: { 'text/plain': { kind: 'text', parse: (text) => text.toUpperCase() } },
  });
  group.get('/group/page', (request) => {
    trace.push('handler');
    return { config: request.routeOptions.config };
  });
  group.get('/group/fails', () => {
    throw new Error('page failed');
  });
  group.post('/group/form', (request) => ({ body: request.body }));
  const broken = routes.group({
    errorHandler: () => {
      throw new ProtocolError('FORBIDDEN', 'the error page refused too');
    },
  });
  broken.get('/broken/page', () => {
    throw new ProtocolError('NOT_FOUND', 'There is no such page');
  });
  await app.ready();
});

afterAll(async () => {
  await app.close();
});

describe('routes', () => {
  it('declares a route once; a HEAD route of its own takes the GET one’s place', () => {
    expect(() => app.routes.get('/plain/:id', () => ({}))).toThrow(/declared twice/);
    expect(app.routeOf('HEAD', '/text')?.head).toBe(true);
    app.routes.head('/text', (_request, reply) => reply.header('x-own-head', 'yes').send());
    expect(app.routeOf('HEAD', '/text')?.head).toBe(false);
  });

  it('routes on the decoded path, ignores a trailing slash, and parses the query when asked', async () => {
    const res = await app.inject({ url: '/plain/a%2Fb/?x=1&x=2&y=z' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ id: 'a/b', q: { x: ['1', '2'], y: 'z' } });
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.headers['x-step']).toBe('yes');
  });

  it('runs the steps, the group’s settings and the after steps in order', async () => {
    trace.length = 0;
    const res = await app.inject({ url: '/group/page' });
    expect(res.json()).toEqual({ config: { openAccess: true } });
    expect(res.headers['x-group']).toBe('yes');
    expect(trace).toEqual(['step /group/page', 'handler', 'group send', 'after GET 200']);
  });

  it('answers a request no route matches after the steps, with the route left unmatched', async () => {
    trace.length = 0;
    const res = await app.inject({ method: 'DELETE', url: '/nowhere' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ code: 'NOT_FOUND', details: 'No route for DELETE /nowhere' });
    expect(trace).toEqual(['step unmatched', 'after DELETE 404']);
  });

  it('answers HEAD with the GET’s length and no body', async () => {
    const res = await app.inject({ method: 'HEAD', url: '/plain/x' });
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe('');
    expect(Number(res.headers['content-length'])).toBe(Buffer.byteLength(JSON.stringify({ id: 'x', q: {} })));
  });

  it('sends what a handler gives back, now or later; nothing from an async handler is a 500', async () => {
    expect((await app.inject({ url: '/text' })).body).toBe('hello');
    const later = await app.inject({ url: '/later' });
    expect([later.statusCode, later.json()]).toEqual([202, { later: true }]);
    const nothing = await app.inject({ url: '/nothing' });
    expect(nothing.statusCode).toBe(500);
    expect(nothing.json()).toMatchObject({ code: 'INTERNAL_ERROR' });
  });

  it('answers a group’s failures with its own error handler', async () => {
    const res = await app.inject({ url: '/group/fails' });
    expect([res.statusCode, res.body]).toEqual([418, 'group: page failed']);
    expect(res.headers['x-group']).toBe('yes');
  });
});

describe('an error handler that fails', () => {
  it('leaves the answer to the server’s own handler, which answers what the failing one threw', async () => {
    const res = await app.inject({ url: '/broken/page' });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ code: 'FORBIDDEN', details: 'the error page refused too' });
  });
});

describe('bodies', () => {
  const post = (url: string, payload: string | Buffer, headers: Record<string, string> = {}) =>
    app.inject({ method: 'POST', url, payload, headers: { 'content-type': 'application/json', ...headers } });

  it('parses JSON, and a gzip body once inflated', async () => {
    expect((await post('/echo', '{"a":[1,2]}')).json()).toEqual({ body: { a: [1, 2] } });
    const zipped = await post('/echo', gzipSync('{"z":true}'), { 'content-encoding': 'gzip' });
    expect(zipped.json()).toEqual({ body: { z: true } });
  });

  it('refuses what cannot be a JSON body, each in the catalogue’s words', async () => {
    const cases: [string | Buffer, Record<string, string>, number, string][] = [
      ['', {}, 400, 'The request body is empty'],
      ['{"a":', {}, 400, 'The request body is not valid JSON'],
      ['{"__proto__":{"x":1}}', {}, 400, 'The request body is not valid JSON'],
      [`${'['.repeat(70)}${']'.repeat(70)}`, {}, 400, 'The JSON body is nested more than 64 levels deep'],
      ['{"a":"b"}', { 'content-type': 'text/xml' }, 415, 'Send the body as application/json'],
      [Buffer.from('not gzip at all'), { 'content-encoding': 'gzip' }, 400, 'The request body is not valid gzip or deflate data'],
      ['{"a":"b"}', { 'content-encoding': 'br' }, 415, "Unsupported Content-Encoding 'br'"],
      [`{"a":"${'x'.repeat(300)}"}`, {}, 413, 'The request body is larger than the limit of 256 bytes'],
    ];
    for (const [payload, headers, status, details] of cases) {
      const res = await post('/echo', payload, headers);
      expect(
        [res.statusCode, res.json<{ details: string }>().details],
        JSON.stringify(headers) + String(payload).slice(0, 20),
      ).toEqual([status, details]);
    }
    // A route's own limit; a zip bomb is measured inflated.
    expect((await post('/small', '{"a":"123456"}')).statusCode).toBe(413);
    const bomb = await post('/echo', gzipSync(`{"a":"${'x'.repeat(10_000)}"}`), { 'content-encoding': 'gzip' });
    expect(bomb.statusCode).toBe(413);
  });

  it('runs a route’s guards before its body is read', async () => {
    const res = await post('/echo', '{"a":', { 'x-refuse': 'yes' });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ code: 'FORBIDDEN', details: 'refused by guard' });
  });

  it('gives a group’s parsers to its routes only', async () => {
    const form = await post('/group/form', 'shout', { 'content-type': 'text/plain' });
    expect(form.json()).toEqual({ body: 'SHOUT' });
    expect((await post('/echo', 'shout', { 'content-type': 'text/plain' })).statusCode).toBe(415);
  });
});
