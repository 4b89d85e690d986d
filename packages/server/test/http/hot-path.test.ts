import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import { Readable } from 'node:stream';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { TenantAdmin } from '@pkg/server';
import {
  loginOn,
  loginUser,
  publishBody,
  registryHost,
  request,
  startRegistry,
  type StartRegistryOptions,
  type TestRegistry,
} from '@pkg/testkit';

/**
 * The hot path (hot-path/) answers package documents, files and whoami before fastify sees them;
 * it must answer exactly as the fastify routes do. Each request below is sent twice in a row,
 * once with the hot path on and once with it off (every request through fastify), and the two
 * answers are compared byte for byte: status, header names, their order and values (but the
 * date and the moving rate-limit figures), body bytes as sent (no decompression), the request
 * log line and the /-/metrics request counters. Fastify's answer is the reference.
 */

const NPM_ACCEPT = 'application/vnd.npm.install-v1+json; q=1.0, application/json; q=0.8, */*';
const DOMAIN = 'registry.test';
const HOT = 'com.acme.hot';
const SIGNED = 'com.acme.signed';
const UNKNOWN = 'com.acme.nope';
/** High enough never to be reached, low enough to be on: every answer carries X-RateLimit-*. */
const HIGH_LIMITS = { rateLimitAnonymous: 100_000, rateLimitAuthenticated: 100_000 };
/** Over 1 KiB: the full document is compressed. */
const README = `# Hot\n\n${'A package the hot path serves. '.repeat(80)}\n`;
/** Enough dependencies that the abbreviated document is over 1 KiB too. */
const DEPENDENCIES = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`com.acme.dependency-${i}`, `^1.${i}.0`]));
/** Headers whose values may differ between the two answers of a pair (remaining is checked apart). */
const VOLATILE = new Set(['date', 'x-ratelimit-remaining', 'x-ratelimit-reset']);

/** A registry under test and the keep-alive agent that talks to it (as npm does). */
interface Target {
  registry: TestRegistry;
  agent: http.Agent;
}

interface Exchange {
  method?: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
  /** Send the body chunked (no Content-Length). */
  chunked?: boolean;
}

interface Reply {
  status: number;
  /** As received: name, value, name, value, ... */
  rawHeaders: string[];
  body: Buffer;
  /** False when the connection ended before the whole body came. */
  complete: boolean;
}

interface Case {
  label: string;
  exchange: () => Exchange;
  /** Fastify's status, to make sure each case tests what it says. */
  status: number;
  /** Whether the hot path answers the request (default) or leaves it to fastify. */
  hot?: boolean;
  /** Refused by fastify before routing: not in the request metrics. */
  uncounted?: boolean;
}

async function startTarget(options: StartRegistryOptions): Promise<Target> {
  const registry = await startRegistry({ captureLogs: true, ...options });
  return { registry, agent: new http.Agent({ keepAlive: true }) };
}

async function closeTarget(target: Target | undefined): Promise<void> {
  if (!target) return;
  target.agent.destroy();
  await target.registry.close();
}

/** One request over node:http: the path as written (no URL normalization), the body not decoded. */
function send(target: Target, exchange: Exchange): Promise<Reply> {
  const headers: Record<string, string> = { ...exchange.headers };
  if (exchange.body !== undefined && !exchange.chunked) headers['content-length'] = String(Buffer.byteLength(exchange.body));
  if (exchange.chunked) headers['transfer-encoding'] = 'chunked';
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        hostname: '127.0.0.1',
        port: target.registry.port,
        path: exchange.path,
        method: exchange.method ?? 'GET',
        headers,
        agent: target.agent,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        // 'close' comes after 'end', or alone when the answer was cut short.
        res.on('close', () =>
          resolve({
            status: res.statusCode ?? 0,
            rawHeaders: res.rawHeaders,
            body: Buffer.concat(chunks),
            complete: res.complete,
          }),
        );
        res.on('error', () => undefined);
      },
    );
    // The connection closed before any answer: status 0 (compared like any other answer).
    req.on('error', (err: NodeJS.ErrnoException) =>
      err.code === 'ECONNRESET' ? resolve({ status: 0, rawHeaders: [], body: Buffer.alloc(0), complete: false }) : reject(err),
    );
    if (exchange.chunked && exchange.body !== undefined) {
      req.write(exchange.body);
      req.end();
    } else req.end(exchange.body);
  });
}

function header(reply: Reply, name: string): string | undefined {
  for (let i = 0; i < reply.rawHeaders.length; i += 2) {
    if (reply.rawHeaders[i]!.toLowerCase() === name) return reply.rawHeaders[i + 1];
  }
  return undefined;
}

/** The headers in order, as `Name: value`, volatile values blanked. */
function headerView(reply: Reply): string[] {
  const view: string[] = [];
  for (let i = 0; i < reply.rawHeaders.length; i += 2) {
    const name = reply.rawHeaders[i]!;
    view.push(`${name}: ${VOLATILE.has(name.toLowerCase()) ? '…' : reply.rawHeaders[i + 1]}`);
  }
  return view;
}

/** The body as text (decompressed when it is), to show what differs. */
function bodyText(reply: Reply): string {
  const coding = header(reply, 'content-encoding');
  try {
    const bytes = coding === 'gzip' ? gunzipSync(reply.body) : coding === 'br' ? brotliDecompressSync(reply.body) : reply.body;
    return bytes.toString('utf8').slice(0, 4000);
  } catch (err) {
    return `(not ${coding}: ${(err as Error).message})`;
  }
}

/** What tells two bodies apart when their decoded text is the same (compressed bytes). */
function bodySummary(reply: Reply): { length: number; sha256: string } {
  return { length: reply.body.length, sha256: createHash('sha256').update(reply.body).digest('hex') };
}

/** Polls `read` until `done` holds (log lines and metrics are written when a response finishes). */
async function eventually<T>(read: () => T | Promise<T>, done: (value: T) => boolean): Promise<T> {
  const deadline = performance.now() + 5000;
  for (;;) {
    const value = await read();
    if (done(value) || performance.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

/** Request lines of the log written since `mark`, without the scrapes of /-/metrics. */
function requestLinesSince(registry: TestRegistry, mark: number): Record<string, unknown>[] {
  return registry.logLines
    .slice(mark)
    .flatMap((chunk) => chunk.split('\n'))
    .filter((line) => line.length > 0)
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((entry) => entry.msg === 'request' && entry.url !== '/-/metrics');
}

/** `requests <method> <route> <status>` and `rejections <route>` → count, as GET /-/metrics tells them. */
async function scrape(target: Target): Promise<Map<string, number>> {
  const reply = await send(target, { path: '/-/metrics' });
  expect(reply.status).toBe(200);
  const counts = new Map<string, number>();
  for (const line of reply.body.toString('utf8').split('\n')) {
    const req = /^pkg_registry_http_requests_total\{method="([^"]*)",route="([^"]*)",status="(\d+)"\} (\d+)$/.exec(line);
    if (req && req[2] !== '/-/metrics') counts.set(`requests ${req[1]} ${req[2]} ${req[3]}`, Number(req[4]));
    const rejected = /^pkg_registry_rate_limit_rejections_total\{route="([^"]*)"\} (\d+)$/.exec(line);
    if (rejected) counts.set(`rejections ${rejected[1]}`, Number(rejected[2]));
  }
  return counts;
}

function countsSince(before: Map<string, number>, after: Map<string, number>): Record<string, number> {
  const delta: Record<string, number> = {};
  for (const [key, value] of after) {
    const grown = value - (before.get(key) ?? 0);
    if (grown !== 0) delta[key] = grown;
  }
  return delta;
}

function total(delta: Record<string, number>, prefix: string): number {
  let sum = 0;
  for (const key in delta) if (key.startsWith(prefix)) sum += delta[key]!;
  return sum;
}

/** `req-1f` → 51: fastify and the hot path number requests from one counter. */
function requestNumber(reqId: unknown): number {
  return parseInt(String(reqId).replace(/^req-/, ''), 36);
}

/** The route label fastify gives a request the hot path answers. */
function hotRouteLabel(path: string): string {
  if (path === '/-/whoami') return '/-/whoami';
  if (path.startsWith('/-/v1/search')) return '/-/v1/search';
  return path.includes('/-/') ? '/:name/-/:file' : '/:name';
}

/**
 * Sends `exchange` with the hot path on, then off (or the other way round), and checks that the
 * two answers, log lines and metrics agree. Returns fastify's answer.
 */
async function comparePair(
  target: Target,
  exchange: Exchange,
  expected: {
    status: number;
    hot?: boolean;
    fastifyFirst?: boolean;
    /** Fastify refuses the URL before routing: no route, so no request metrics. */
    uncounted?: boolean;
    /**
     * The body fails part way: both answers end early, after however many bytes (and may go
     * unlogged and uncounted, as long as that holds for both).
     */
    cutShort?: boolean;
  },
): Promise<{ hot: Reply; fastify: Reply }> {
  const { registry } = target;
  const hotServes = expected.hot ?? true;
  const method = exchange.method ?? 'GET';
  const countsBefore = await scrape(target);
  const logMark = registry.logLines.length;

  const replies: { hot?: Reply; fastify?: Reply } = {};
  const order = expected.fastifyFirst ? (['fastify', 'hot'] as const) : (['hot', 'fastify'] as const);
  try {
    for (const mode of order) {
      registry.hotPath.enabled = mode === 'hot';
      const served = registry.hotPath.served;
      replies[mode] = await send(target, exchange);
      expect(registry.hotPath.served - served, `requests the hot path served (hot path ${mode === 'hot' ? 'on' : 'off'})`).toBe(
        mode === 'hot' && hotServes ? 1 : 0,
      );
    }
  } finally {
    registry.hotPath.enabled = true;
  }
  const hot = replies.hot!;
  const fastify = replies.fastify!;
  expect(fastify.status, 'status of the fastify answer').toBe(expected.status);
  expect.soft(hot.status, 'status of the hot path answer').toBe(fastify.status);
  expect.soft(headerView(hot), 'headers of the hot path answer: names, order, values').toEqual(headerView(fastify));
  expect.soft(hot.complete, 'the hot path answer came whole').toBe(fastify.complete);
  if (!expected.cutShort && !hot.body.equals(fastify.body)) {
    const [hotText, fastifyText] = [bodyText(hot), bodyText(fastify)];
    if (hotText !== fastifyText) expect.soft(hotText, 'body of the hot path answer (decoded)').toBe(fastifyText);
    else expect.soft(bodySummary(hot), 'body bytes of the hot path answer').toEqual(bodySummary(fastify));
  }
  // Each request of the pair counts: the second has one request less left (none past the limit).
  const first = header(replies[order[0]]!, 'x-ratelimit-remaining');
  const second = header(replies[order[1]]!, 'x-ratelimit-remaining');
  expect
    .soft(second, 'X-RateLimit-Remaining of the second request')
    .toBe(first === undefined ? undefined : String(Math.max(0, Number(first) - 1)));

  // A response cut short never finishes, so it may never be recorded: no waiting for it. A later
  // request (the scrape) is the point by which any line of the pair would have been written.
  const silent = expected.cutShort === true;
  const counts = silent
    ? countsSince(countsBefore, await scrape(target))
    : await eventually(
        async () => countsSince(countsBefore, await scrape(target)),
        (delta) => expected.uncounted === true || total(delta, 'requests ') >= 2,
      );
  // Request ids grow with each request: the first line is the first request's.
  const lines = (
    silent
      ? requestLinesSince(registry, logMark)
      : await eventually(
          () => requestLinesSince(registry, logMark),
          (found) => found.length >= 2,
        )
  ).sort((x, y) => requestNumber(x.reqId) - requestNumber(y.reqId));
  // One line per request of the pair; for answers cut short, none for either will do too.
  expect(silent ? [0, 2] : [2], `request log lines of the pair: ${lines.length}`).toContain(lines.length);
  if (lines.length === 2) {
    const line = { [order[0]]: lines[0]!, [order[1]]: lines[1]! } as Record<'hot' | 'fastify', Record<string, unknown>>;
    expect(line.hot.reqId).not.toBe(line.fastify.reqId);
    expect(typeof line.hot.ms).toBe('number');
    expect(typeof line.fastify.ms).toBe('number');
    const stable = ({ reqId: _reqId, ms: _ms, time: _time, ...rest }: Record<string, unknown>) => rest;
    expect(stable(line.fastify)).toMatchObject({ method, url: exchange.path, status: expected.status });
    expect
      .soft(stable(line.hot), 'request log line of the hot path answer, but reqId, ms and time')
      .toEqual(stable(line.fastify));
  }

  const requestCounts = Object.fromEntries(Object.entries(counts).filter(([key]) => key.startsWith('requests ')));
  if (expected.uncounted) {
    expect.soft(requestCounts, '/-/metrics request counts of the pair (none)').toEqual({});
  } else if (silent) {
    expect
      .soft(Object.values(requestCounts), '/-/metrics request counts of the pair: both or neither')
      .toEqual(lines.length === 0 ? [] : [2]);
  } else if (hotServes) {
    expect.soft(requestCounts, '/-/metrics request counts of the pair').toEqual({
      [`requests ${method} ${hotRouteLabel(exchange.path)} ${expected.status}`]: 2,
    });
  } else {
    expect.soft(Object.values(requestCounts), '/-/metrics request counts of the pair: one route label').toEqual([2]);
  }
  const rejections = Object.entries(counts).filter(([key]) => key.startsWith('rejections '));
  expect
    .soft(rejections, 'rate limit rejections of the pair')
    .toEqual(expected.status === 429 ? [[`rejections ${hotRouteLabel(exchange.path)}`, 2]] : []);
  return { hot, fastify };
}

/** Publishes through a registry host (the Host header names the tenant). */
async function publishOn(url: string, host: string, token: string, name: string, version: string, options = {}) {
  const { body } = publishBody(name, version, options);
  const res = await registryHost(url, host).request(`/${name}`, { method: 'PUT', token, body });
  expect(res.status, `publish ${name}@${version}: ${res.text}`).toBe(201);
}

function bearer(token: string): Record<string, string> {
  return { authorization: `Bearer ${token}` };
}

describe('on the global registry', () => {
  let target: Target;
  let token: string;
  let otherToken: string;
  const tags: Record<'identity' | 'gzip' | 'abbreviated' | 'lastModified' | 'tarball', string> = {
    identity: '',
    gzip: '',
    abbreviated: '',
    lastModified: '',
    tarball: '',
  };

  beforeAll(async () => {
    target = await startTarget({ settings: HIGH_LIMITS });
    const { url } = target.registry;
    token = await loginUser(url, 'alice');
    otherToken = await loginUser(url, 'bob');
    const manifest = { dependencies: DEPENDENCIES, license: 'MIT', keywords: ['hot', 'path'] };
    await publishOn(url, new URL(url).host, token, HOT, '1.0.0', { manifest, readme: README });
    // Over 1 MiB: the blob store streams this tarball instead of reading it whole.
    await publishOn(url, new URL(url).host, token, HOT, '1.1.0', {
      manifest,
      readme: README,
      files: [{ path: 'Runtime/data.bin', content: randomBytes(1_200_000) }],
    });
    const signed = publishBody(SIGNED, '1.0.0');
    const bundle = JSON.stringify({ mediaType: 'application/vnd.dev.sigstore.bundle+json;version=0.2', content: 'x' });
    (signed.body._attachments as Record<string, unknown>)[`${SIGNED}-1.0.0.sigstore`] = {
      content_type: 'application/vnd.dev.sigstore.bundle+json;version=0.2',
      data: bundle,
      length: bundle.length,
    };
    expect((await request(`${url}/${SIGNED}`, { method: 'PUT', token, body: signed.body })).status).toBe(201);

    const full = await send(target, { path: `/${HOT}` });
    tags.identity = header(full, 'etag')!;
    tags.lastModified = header(full, 'last-modified')!;
    tags.gzip = header(await send(target, { path: `/${HOT}`, headers: { 'accept-encoding': 'gzip' } }), 'etag')!;
    tags.abbreviated = header(await send(target, { path: `/${HOT}`, headers: { accept: NPM_ACCEPT } }), 'etag')!;
    tags.tarball = header(await send(target, { path: `/${HOT}/-/${HOT}-1.0.0.tgz` }), 'etag')!;
    expect(tags.gzip).toMatch(/-gzip"$/);
    expect(Object.values(tags).every((tag) => tag.length > 0)).toBe(true);
  });
  afterAll(async () => {
    await closeTarget(target);
  });

  const hotCases: Case[] = [
    { label: 'full document', exchange: () => ({ path: `/${HOT}` }), status: 200 },
    {
      label: "abbreviated document (npm's Accept)",
      exchange: () => ({ path: `/${HOT}`, headers: { accept: NPM_ACCEPT } }),
      status: 200,
    },
    {
      label: 'abbreviated document (bare install type)',
      exchange: () => ({ path: `/${HOT}`, headers: { accept: 'application/vnd.npm.install-v1+json' } }),
      status: 200,
    },
    { label: 'gzip', exchange: () => ({ path: `/${HOT}`, headers: { 'accept-encoding': 'gzip' } }), status: 200 },
    { label: 'br', exchange: () => ({ path: `/${HOT}`, headers: { 'accept-encoding': 'br' } }), status: 200 },
    { label: 'gzip and br', exchange: () => ({ path: `/${HOT}`, headers: { 'accept-encoding': 'gzip, br' } }), status: 200 },
    { label: 'any coding', exchange: () => ({ path: `/${HOT}`, headers: { 'accept-encoding': '*' } }), status: 200 },
    {
      label: 'abbreviated, gzip, deflate, br (npm)',
      exchange: () => ({ path: `/${HOT}`, headers: { accept: NPM_ACCEPT, 'accept-encoding': 'gzip, deflate, br' } }),
      status: 200,
    },
    {
      label: 'If-None-Match with the etag',
      exchange: () => ({ path: `/${HOT}`, headers: { 'if-none-match': tags.identity } }),
      status: 304,
    },
    {
      label: 'If-None-Match with the gzip etag, gzip accepted',
      exchange: () => ({ path: `/${HOT}`, headers: { 'if-none-match': tags.gzip, 'accept-encoding': 'gzip' } }),
      status: 304,
    },
    {
      label: 'If-None-Match with the gzip etag, no coding accepted',
      exchange: () => ({ path: `/${HOT}`, headers: { 'if-none-match': tags.gzip } }),
      status: 304,
    },
    {
      label: 'If-None-Match with the abbreviated etag',
      exchange: () => ({ path: `/${HOT}`, headers: { accept: NPM_ACCEPT, 'if-none-match': tags.abbreviated } }),
      status: 304,
    },
    {
      label: 'If-None-Match with another etag',
      exchange: () => ({ path: `/${HOT}`, headers: { 'if-none-match': '"something-else"' } }),
      status: 200,
    },
    {
      label: 'If-Modified-Since the last modification',
      exchange: () => ({ path: `/${HOT}`, headers: { 'if-modified-since': tags.lastModified } }),
      status: 304,
    },
    {
      label: 'If-Modified-Since long ago',
      exchange: () => ({ path: `/${HOT}`, headers: { 'if-modified-since': 'Sat, 01 Jan 2000 00:00:00 GMT' } }),
      status: 200,
    },
    {
      label: 'an Accept-Version header (a fastify route constraint)',
      exchange: () => ({ path: `/${HOT}`, headers: { 'accept-version': '1.0.0' } }),
      status: 200,
    },
    { label: 'unknown package', exchange: () => ({ path: `/${UNKNOWN}` }), status: 404 },
    { label: 'unknown package, asked again (remembered 404)', exchange: () => ({ path: `/${UNKNOWN}` }), status: 404 },
    { label: 'a name that looks like a file', exchange: () => ({ path: '/favicon.ico' }), status: 404 },
    { label: 'document with a token', exchange: () => ({ path: `/${HOT}`, headers: bearer(token) }), status: 200 },
    {
      label: 'document with a garbage token (anonymous)',
      exchange: () => ({ path: `/${HOT}`, headers: bearer('not-a-real-token-0123456789') }),
      status: 200,
    },
    { label: 'tarball', exchange: () => ({ path: `/${HOT}/-/${HOT}-1.0.0.tgz` }), status: 200 },
    { label: 'tarball over 1 MiB (streamed)', exchange: () => ({ path: `/${HOT}/-/${HOT}-1.1.0.tgz` }), status: 200 },
    {
      label: 'tarball with a token',
      exchange: () => ({ path: `/${HOT}/-/${HOT}-1.0.0.tgz`, headers: bearer(otherToken) }),
      status: 200,
    },
    {
      label: 'tarball, If-None-Match with its integrity',
      exchange: () => ({ path: `/${HOT}/-/${HOT}-1.0.0.tgz`, headers: { 'if-none-match': tags.tarball } }),
      status: 304,
    },
    {
      label: 'tarball with gzip accepted (sent as stored)',
      exchange: () => ({ path: `/${HOT}/-/${HOT}-1.0.0.tgz`, headers: { 'accept-encoding': 'gzip, br' } }),
      status: 200,
    },
    { label: 'tarball of an unknown version', exchange: () => ({ path: `/${HOT}/-/${HOT}-9.9.9.tgz` }), status: 404 },
    { label: 'missing .sigstore', exchange: () => ({ path: `/${HOT}/-/${HOT}-1.0.0.sigstore` }), status: 404 },
    { label: '.sigstore', exchange: () => ({ path: `/${SIGNED}/-/${SIGNED}-1.0.0.sigstore` }), status: 200 },
    { label: 'tarball of an unknown package', exchange: () => ({ path: `/${UNKNOWN}/-/${UNKNOWN}-1.0.0.tgz` }), status: 404 },
    { label: "another package's file name", exchange: () => ({ path: `/${HOT}/-/${SIGNED}-1.0.0.tgz` }), status: 404 },
    { label: 'a file name that is no tarball', exchange: () => ({ path: `/${HOT}/-/package.json` }), status: 404 },
    { label: 'a file name of 500 characters', exchange: () => ({ path: `/${HOT}/-/${'x'.repeat(500)}` }), status: 404 },
    { label: 'a file name with a semicolon', exchange: () => ({ path: `/${HOT}/-/${HOT}-1.0.0.tgz;x=1` }), status: 404 },
    { label: 'whoami with a token', exchange: () => ({ path: '/-/whoami', headers: bearer(token) }), status: 200 },
    { label: 'whoami without a token', exchange: () => ({ path: '/-/whoami' }), status: 401 },
    {
      label: 'whoami with a garbage token',
      exchange: () => ({ path: '/-/whoami', headers: bearer('not-a-real-token-0123456789') }),
      status: 401,
    },
    {
      label: 'whoami with Basic auth (anonymous)',
      exchange: () => ({
        path: '/-/whoami',
        headers: { authorization: `Basic ${Buffer.from('alice:secret-password').toString('base64')}` },
      }),
      status: 401,
    },
  ];

  it.each(hotCases)('$label: the hot path answers as fastify does', async (c) => {
    await comparePair(target, c.exchange(), { status: c.status });
  });

  const fallThrough: Case[] = [
    { label: 'HEAD of a document', exchange: () => ({ method: 'HEAD', path: `/${HOT}` }), status: 200 },
    { label: 'HEAD of a tarball', exchange: () => ({ method: 'HEAD', path: `/${HOT}/-/${HOT}-1.0.0.tgz` }), status: 200 },
    { label: '?write=true', exchange: () => ({ path: `/${HOT}?write=true` }), status: 200 },
    { label: 'a query string on whoami', exchange: () => ({ path: '/-/whoami?x=1', headers: bearer(token) }), status: 200 },
    { label: 'a trailing slash', exchange: () => ({ path: `/${HOT}/` }), status: 200 },
    { label: 'whoami with a trailing slash', exchange: () => ({ path: '/-/whoami/', headers: bearer(token) }), status: 200 },
    { label: 'percent-encoding', exchange: () => ({ path: `/com.acme%2ehot` }), status: 200 },
    { label: 'percent-encoding in a file name', exchange: () => ({ path: `/${HOT}/-/${HOT}-1.0.0%2etgz` }), status: 200 },
    { label: 'an invalid name (uppercase)', exchange: () => ({ path: '/Com.Acme.Hot' }), status: 422 },
    { label: 'an invalid name (one segment)', exchange: () => ({ path: '/hot' }), status: 422 },
    {
      label: 'a file name over 500 characters',
      exchange: () => ({ path: `/${HOT}/-/${'x'.repeat(501)}` }),
      status: 400,
      uncounted: true,
    },
    {
      label: 'bad percent-encoding',
      exchange: () => ({ path: `/${HOT}/-/${HOT}-1.0.0.tgz%E0%A4%A` }),
      status: 400,
      uncounted: true,
    },
    { label: 'a document name followed by a fragment', exchange: () => ({ path: `/${HOT}#fragment` }), status: 200 },
    {
      label: 'Content-Encoding: br (unsupported) without a body',
      exchange: () => ({ path: `/${HOT}`, headers: { 'content-encoding': 'br' } }),
      status: 415,
    },
    {
      label: 'Content-Encoding: gzip without a body',
      exchange: () => ({ path: `/${HOT}`, headers: { 'content-encoding': 'gzip' } }),
      status: 200,
    },
    {
      label: 'a file name followed by a fragment',
      exchange: () => ({ path: `/${HOT}/-/${HOT}-1.0.0.tgz#fragment` }),
      status: 200,
    },
    { label: 'a version', exchange: () => ({ path: `/${HOT}/1.0.0` }), status: 200 },
    { label: 'POST', exchange: () => ({ method: 'POST', path: `/${HOT}` }), status: 404 },
    {
      label: 'PUT without a token',
      exchange: () => ({ method: 'PUT', path: `/${HOT}`, headers: { 'content-type': 'application/json' }, body: '{}' }),
      status: 401,
    },
    { label: '/-/ping', exchange: () => ({ path: '/-/ping' }), status: 200 },
    { label: 'a GET with a body', exchange: () => ({ path: `/${HOT}`, body: 'x' }), status: 200 },
    { label: 'a GET with a chunked body', exchange: () => ({ path: `/${HOT}`, body: 'x', chunked: true }), status: 200 },
    {
      label: 'whoami with a body',
      exchange: () => ({ path: '/-/whoami', headers: bearer(token), body: '{}' }),
      status: 200,
    },
  ];

  it.each(fallThrough)('$label: left to fastify', async (c) => {
    await comparePair(target, c.exchange(), { status: c.status, hot: false, uncounted: c.uncounted });
  });

  describe('a document not yet in the cache (right after a publish)', () => {
    let serial = 0;
    /** A package published just now, so that no request has read it yet. */
    async function fresh(): Promise<string> {
      const name = `com.acme.fresh${++serial}`;
      const { url } = target.registry;
      await publishOn(url, new URL(url).host, token, name, '1.0.0', { manifest: { dependencies: DEPENDENCIES }, readme: README });
      return name;
    }

    it('full document: the hot path reads the store, fastify then the cache', async () => {
      await comparePair(target, { path: `/${await fresh()}` }, { status: 200 });
    });

    it('gzip: the hot path compresses it first', async () => {
      await comparePair(target, { path: `/${await fresh()}`, headers: { 'accept-encoding': 'gzip' } }, { status: 200 });
    });

    it('abbreviated with br', async () => {
      const name = await fresh();
      await comparePair(target, { path: `/${name}`, headers: { accept: NPM_ACCEPT, 'accept-encoding': 'br' } }, { status: 200 });
    });

    it('the tarball before any document read', async () => {
      const name = await fresh();
      await comparePair(target, { path: `/${name}/-/${name}-1.0.0.tgz` }, { status: 200 });
    });

    it('fastify reads the store first, the hot path then the cache', async () => {
      const name = await fresh();
      await comparePair(target, { path: `/${name}` }, { status: 200, fastifyFirst: true });
      const other = await fresh();
      await comparePair(target, { path: `/${other}`, headers: { 'accept-encoding': 'br' } }, { status: 200, fastifyFirst: true });
    });

    it('a new version: both answer the new document', async () => {
      const name = await fresh();
      await comparePair(target, { path: `/${name}` }, { status: 200 });
      const { url } = target.registry;
      await publishOn(url, new URL(url).host, token, name, '1.1.0', { manifest: { dependencies: DEPENDENCIES }, readme: README });
      const { fastify } = await comparePair(target, { path: `/${name}` }, { status: 200 });
      expect(Object.keys(JSON.parse(fastify.body.toString('utf8')).versions)).toEqual(['1.0.0', '1.1.0']);
    });

    it('whoami with a token no request has used yet', async () => {
      const fresher = await loginUser(target.registry.url, `fresh-user-${++serial}`);
      await comparePair(target, { path: '/-/whoami', headers: bearer(fresher) }, { status: 200 });
    });
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

  describe('when something goes wrong', () => {
    /** `unhandled error` lines since `mark`, without what differs by nature (time, reqId, stack). */
    function errorLinesSince(mark: number) {
      return target.registry.logLines
        .slice(mark)
        .flatMap((chunk) => chunk.split('\n'))
        .filter((line) => line.length > 0)
        .map((line) => JSON.parse(line) as Record<string, any>)
        .filter((entry) => entry.msg === 'unhandled error')
        .map(({ time: _time, reqId, err, ...rest }) => ({
          ...rest,
          reqId: typeof reqId,
          err: { type: err?.type, message: err?.message },
        }));
    }

    it('a file read fails: the same 500 and the same error log line', async () => {
      const reads = target.registry.services.packageReads;
      const original = { file: reads.file, cachedFile: reads.cachedFile };
      // Not from the tarball cache: from the store, which fails.
      reads.cachedFile = () => undefined;
      reads.file = async () => {
        throw new Error('the disk is on fire');
      };
      const mark = target.registry.logLines.length;
      try {
        await comparePair(target, { path: `/${HOT}/-/${HOT}-1.0.0.tgz` }, { status: 500 });
      } finally {
        Object.assign(reads, original);
      }
      const [hotError, fastifyError, ...more] = errorLinesSince(mark);
      expect(more).toEqual([]);
      expect(fastifyError).toMatchObject({ level: 50, reqId: 'string', err: { type: 'Error', message: 'the disk is on fire' } });
      expect.soft(hotError, "the hot path's error log line").toEqual(fastifyError);
    });

    it('a blob fails part way through a streamed tarball: both cut the answer short', async () => {
      const { blobs } = target.registry.storage;
      const get = blobs.get;
      blobs.get = async () => {
        let sent = false;
        const stream = new Readable({
          read() {
            // Once the first bytes are out (a turn of the event loop later).
            if (sent) setTimeout(() => this.destroy(new Error('the blob store went away')), 1);
            else {
              sent = true;
              this.push(Buffer.alloc(64 * 1024, 7));
            }
          },
        });
        return { stream, size: 1_201_054 };
      };
      const mark = target.registry.logLines.length;
      try {
        const { fastify } = await comparePair(target, { path: `/${HOT}/-/${HOT}-1.1.0.tgz` }, { status: 200, cutShort: true });
        expect(fastify.complete).toBe(false);
      } finally {
        blobs.get = get;
      }
      const others = target.registry.logLines
        .slice(mark)
        .flatMap((chunk) => chunk.split('\n'))
        .filter((line) => line.length > 0)
        .map((line) => JSON.parse(line) as Record<string, any>)
        .filter((entry) => entry.msg !== 'request' && entry.url !== '/-/metrics')
        .map(({ time: _time, reqId: _reqId, err, ...rest }) => ({
          ...rest,
          err: err && { type: err.type, message: err.message },
        }));
      // Whatever fastify logs besides the request line, the hot path logs too.
      expect.soft(others.length % 2, `other log lines of the pair: ${JSON.stringify(others)}`).toBe(0);
      expect.soft(others.slice(0, others.length / 2)).toEqual(others.slice(others.length / 2));
    });

    it('a client gone before the answer: logged and counted alike', async () => {
      const { registry } = target;
      const reads = registry.services.packageReads;
      const original = { cachedDocument: reads.cachedDocument, document: reads.document };
      const outcome: Partial<Record<'hot' | 'fastify', { lines: Record<string, unknown>[]; counts: Record<string, number> }>> =
        {};
      try {
        for (const mode of ['hot', 'fastify'] as const) {
          let entered!: (started: { read: Promise<unknown> }) => void;
          let release!: () => void;
          const reading = new Promise<{ read: Promise<unknown> }>((resolve) => (entered = resolve));
          const gate = new Promise<void>((resolve) => (release = resolve));
          // Read from the store each time, and only once the client has gone.
          reads.cachedDocument = () => undefined;
          reads.document = (...args) => {
            const read = gate.then(() => original.document.apply(reads, args));
            entered({ read });
            return read;
          };
          const before = await scrape(target);
          const mark = registry.logLines.length;
          const connections = () =>
            new Promise<number>((resolve, reject) =>
              registry.app.server.getConnections((err, count) => (err ? reject(err) : resolve(count))),
            );
          const open = await connections();
          const served = registry.hotPath.served;
          registry.hotPath.enabled = mode === 'hot';
          const req = http.request({ hostname: '127.0.0.1', port: registry.port, path: `/${HOT}`, agent: false });
          req.on('error', () => undefined);
          req.end();
          const { read } = await reading;
          registry.hotPath.enabled = true;
          expect(registry.hotPath.served - served).toBe(mode === 'hot' ? 1 : 0);
          req.destroy();
          await eventually(connections, (count) => count === open);
          release();
          await read;
          // A later request: by its end, whatever answering the first one logs has been written.
          const counts = countsSince(before, await scrape(target));
          const lines = requestLinesSince(registry, mark).map(({ reqId: _r, ms: _m, time: _t, ...rest }) => rest);
          outcome[mode] = { lines, counts };
        }
      } finally {
        Object.assign(reads, original);
      }
      expect.soft(outcome.hot, 'log lines and metrics of the request whose client left').toEqual(outcome.fastify);
    });

    it('a document read (not cached) fails: the same 500', async () => {
      const reads = target.registry.services.packageReads;
      const original = reads.document;
      reads.document = async () => {
        throw new Error('the database is on fire');
      };
      try {
        await comparePair(target, { path: '/com.acme.uncached', headers: { 'accept-encoding': 'gzip' } }, { status: 500 });
      } finally {
        reads.document = original;
      }
    });
  });
});

describe('a request in flight when shutdown begins', () => {
  it('is answered alike, with Connection: close', async () => {
    const replies: Partial<Record<'hot' | 'fastify', Reply>> = {};
    for (const mode of ['hot', 'fastify'] as const) {
      // A registry each (shutting down ends it), so both start with the same counters.
      const target = await startTarget({ settings: HIGH_LIMITS });
      const { registry } = target;
      registry.hotPath.enabled = mode === 'hot';
      const reads = registry.services.packageReads;
      const read = reads.document.bind(reads);
      let entered!: () => void;
      let release!: () => void;
      const reading = new Promise<void>((resolve) => (entered = resolve));
      const gate = new Promise<void>((resolve) => (release = resolve));
      reads.document = async (...args) => {
        entered();
        await gate;
        return read(...args);
      };
      const served = registry.hotPath.served;
      const pending = send(target, { path: `/${UNKNOWN}` });
      await reading;
      expect(registry.hotPath.served - served).toBe(mode === 'hot' ? 1 : 0);
      const closing = registry.close();
      // Fastify stops listening once its preClose hooks (draining begins) have run.
      await eventually(
        () => registry.app.server.listening,
        (listening) => !listening,
      );
      expect(registry.app.server.listening).toBe(false);
      release();
      replies[mode] = await pending;
      await closing;
      target.agent.destroy();
    }
    const { hot, fastify } = replies as Record<'hot' | 'fastify', Reply>;
    expect(fastify.status).toBe(404);
    expect(header(fastify, 'connection')).toBe('close');
    expect.soft(hot.status, 'status of the hot path answer').toBe(fastify.status);
    expect.soft(headerView(hot), 'headers of the hot path answer: names, order, values').toEqual(headerView(fastify));
    expect.soft(header(hot, 'x-ratelimit-remaining')).toBe(header(fastify, 'x-ratelimit-remaining'));
    expect.soft(hot.body.toString('utf8'), 'body of the hot path answer').toBe(fastify.body.toString('utf8'));
  });
});

describe('readAccess: token', () => {
  let target: Target;
  let token: string;

  beforeAll(async () => {
    target = await startTarget({ settings: { ...HIGH_LIMITS, readAccess: 'token' } });
    const { url } = target.registry;
    token = await loginUser(url, 'reader');
    await publishOn(url, new URL(url).host, token, HOT, '1.0.0', { readme: README });
  });
  afterAll(async () => {
    await closeTarget(target);
  });

  const cases: Case[] = [
    { label: 'anonymous document', exchange: () => ({ path: `/${HOT}` }), status: 401 },
    { label: 'anonymous unknown package', exchange: () => ({ path: `/${UNKNOWN}` }), status: 401 },
    { label: 'anonymous tarball', exchange: () => ({ path: `/${HOT}/-/${HOT}-1.0.0.tgz` }), status: 401 },
    { label: 'anonymous whoami', exchange: () => ({ path: '/-/whoami' }), status: 401 },
    {
      label: 'document with a garbage token',
      exchange: () => ({ path: `/${HOT}`, headers: bearer('not-a-real-token-0123456789') }),
      status: 401,
    },
    { label: 'document with a token', exchange: () => ({ path: `/${HOT}`, headers: bearer(token) }), status: 200 },
    {
      label: 'gzip document with a token',
      exchange: () => ({ path: `/${HOT}`, headers: { ...bearer(token), 'accept-encoding': 'gzip' } }),
      status: 200,
    },
    { label: 'unknown package with a token', exchange: () => ({ path: `/${UNKNOWN}`, headers: bearer(token) }), status: 404 },
    {
      label: 'tarball with a token',
      exchange: () => ({ path: `/${HOT}/-/${HOT}-1.0.0.tgz`, headers: bearer(token) }),
      status: 200,
    },
    { label: 'whoami with a token', exchange: () => ({ path: '/-/whoami', headers: bearer(token) }), status: 200 },
  ];

  it.each(cases)('$label: the hot path answers as fastify does', async (c) => {
    await comparePair(target, c.exchange(), { status: c.status });
  });
});

describe('tenant hosts, behind a trusted proxy', () => {
  let target: Target;
  let tenantToken: string;
  let globalToken: string;
  const host = (name: string) => `${name}:${target.registry.port}`;

  beforeAll(async () => {
    target = await startTarget({ settings: { ...HIGH_LIMITS, registryDomain: DOMAIN, trustProxy: 'true' } });
    const { registry } = target;
    const admin = new TenantAdmin(registry.storage.metadata, registry.storage.blobs);
    await admin.create('a', {});
    await admin.create('private', { readAccess: 'token' });
    tenantToken = await loginOn(registryHost(registry.url, `a.${DOMAIN}`), 'tenant-user');
    globalToken = await loginOn(registryHost(registry.url, DOMAIN), 'global-user');
    await publishOn(registry.url, host(`a.${DOMAIN}`), tenantToken, HOT, '1.0.0', {
      manifest: { dependencies: DEPENDENCIES },
      readme: README,
    });
  });
  afterAll(async () => {
    await closeTarget(target);
  });

  const forwarded = (forwardedHost: string, extra: Record<string, string> = {}) => ({
    'x-forwarded-host': forwardedHost,
    'x-forwarded-proto': 'https',
    'x-forwarded-for': '203.0.113.7',
    ...extra,
  });

  const cases: Case[] = [
    { label: 'tenant document', exchange: () => ({ path: `/${HOT}`, headers: { host: host(`a.${DOMAIN}`) } }), status: 200 },
    {
      label: 'tenant abbreviated document, gzip',
      exchange: () => ({
        path: `/${HOT}`,
        headers: { host: host(`a.${DOMAIN}`), accept: NPM_ACCEPT, 'accept-encoding': 'gzip' },
      }),
      status: 200,
    },
    {
      label: 'tenant document with a token',
      exchange: () => ({ path: `/${HOT}`, headers: { host: host(`a.${DOMAIN}`), ...bearer(tenantToken) } }),
      status: 200,
    },
    {
      label: 'tenant unknown package',
      exchange: () => ({ path: `/${UNKNOWN}`, headers: { host: host(`a.${DOMAIN}`) } }),
      status: 404,
    },
    {
      label: 'tenant tarball',
      exchange: () => ({ path: `/${HOT}/-/${HOT}-1.0.0.tgz`, headers: { host: host(`a.${DOMAIN}`) } }),
      status: 200,
    },
    {
      label: 'tenant whoami',
      exchange: () => ({ path: '/-/whoami', headers: { host: host(`a.${DOMAIN}`), ...bearer(tenantToken) } }),
      status: 200,
    },
    {
      label: 'tenant whoami with a token of the global registry',
      exchange: () => ({ path: '/-/whoami', headers: { host: host(`a.${DOMAIN}`), ...bearer(globalToken) } }),
      status: 401,
    },
    {
      label: "the bare domain (global registry) does not have the tenant's package",
      exchange: () => ({ path: `/${HOT}`, headers: { host: host(DOMAIN) } }),
      status: 404,
    },
    {
      label: 'global whoami on the bare domain',
      exchange: () => ({ path: '/-/whoami', headers: { host: host(DOMAIN), ...bearer(globalToken) } }),
      status: 200,
    },
    {
      label: 'host names are case-insensitive',
      exchange: () => ({ path: `/${HOT}`, headers: { host: host(`A.Registry.TEST`) } }),
      status: 200,
    },
    {
      label: 'unknown tenant: document',
      exchange: () => ({ path: `/${HOT}`, headers: { host: host(`nope.${DOMAIN}`) } }),
      status: 404,
    },
    {
      label: 'unknown tenant: tarball',
      exchange: () => ({ path: `/${HOT}/-/${HOT}-1.0.0.tgz`, headers: { host: host(`nope.${DOMAIN}`) } }),
      status: 404,
    },
    {
      label: 'unknown tenant: whoami',
      exchange: () => ({ path: '/-/whoami', headers: { host: host(`nope.${DOMAIN}`), ...bearer(tenantToken) } }),
      status: 404,
    },
    {
      label: 'token-only tenant: anonymous document',
      exchange: () => ({ path: `/${HOT}`, headers: { host: host(`private.${DOMAIN}`) } }),
      status: 401,
    },
    {
      label: 'whoami: registry URL from X-Forwarded-Host and X-Forwarded-Proto, IP from X-Forwarded-For',
      exchange: () => ({ path: '/-/whoami', headers: forwarded(`a.${DOMAIN}`, bearer(tenantToken)) }),
      status: 200,
    },
    {
      label: 'document: tarball URLs from X-Forwarded-Host and X-Forwarded-Proto',
      exchange: () => ({ path: `/${HOT}`, headers: forwarded(`a.${DOMAIN}`) }),
      status: 200,
    },
    {
      label: 'document: several X-Forwarded-For hops',
      exchange: () => ({
        path: `/${HOT}`,
        headers: forwarded(`a.${DOMAIN}`, { 'x-forwarded-for': '198.51.100.1, 203.0.113.9' }),
      }),
      status: 200,
    },
    {
      label: 'X-Forwarded-Host naming an unknown tenant',
      exchange: () => ({ path: `/${HOT}`, headers: forwarded(`nope.${DOMAIN}`) }),
      status: 404,
    },
  ];

  it.each(cases)('$label: the hot path answers as fastify does', async (c) => {
    await comparePair(target, c.exchange(), { status: c.status });
  });

  it('the forwarded headers make the URL and the logged IP', async () => {
    const mark = target.registry.logLines.length;
    const { fastify } = await comparePair(
      target,
      { path: '/-/whoami', headers: forwarded(`a.${DOMAIN}`, bearer(tenantToken)) },
      { status: 200 },
    );
    expect(JSON.parse(fastify.body.toString('utf8')).registry).toBe(`https://a.${DOMAIN}/`);
    const lines = requestLinesSince(target.registry, mark);
    expect(lines.map((line) => [line.ip, line.tenant, line.user])).toEqual([
      ['203.0.113.7', 'a', 'tenant-user'],
      ['203.0.113.7', 'a', 'tenant-user'],
    ]);
  });
});

describe('search', () => {
  let target: Target;

  beforeAll(async () => {
    target = await startTarget({ settings: HIGH_LIMITS });
    const { url } = target.registry;
    const token = await loginUser(url, 'searcher');
    await publishOn(url, new URL(url).host, token, HOT, '1.0.0', { readme: README, manifest: { keywords: ['hot'] } });
    await publishOn(url, new URL(url).host, token, SIGNED, '1.0.0', { readme: README });
    // Search answers carry the time they were made: one instant for both answers of a pair.
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
  });
  afterAll(async () => {
    vi.useRealTimers();
    await closeTarget(target);
  });

  const cases: Case[] = [
    { label: 'one word', exchange: () => ({ path: '/-/v1/search?text=hot&size=5' }), status: 200 },
    {
      label: 'a scope listing, as the Unity Editor sends it',
      exchange: () => ({ path: '/-/v1/search?text=com.acme&from=0&size=250' }),
      status: 200,
    },
    { label: 'percent-encoded text', exchange: () => ({ path: '/-/v1/search?text=keywords%3Ahot' }), status: 200 },
    { label: 'no query string', exchange: () => ({ path: '/-/v1/search' }), status: 400 },
    { label: 'an empty query string', exchange: () => ({ path: '/-/v1/search?' }), status: 400 },
    { label: 'a size that is no number', exchange: () => ({ path: '/-/v1/search?text=hot&size=many' }), status: 400 },
    { label: 'text given twice', exchange: () => ({ path: '/-/v1/search?text=hot&text=acme' }), status: 400 },
    { label: 'nothing found', exchange: () => ({ path: '/-/v1/search?text=zzzzzzzz' }), status: 200 },
  ];
  it.each(cases)('$label: the hot path answers as fastify does', async (c) => {
    await comparePair(target, c.exchange(), { status: c.status });
  });

  const fallThrough: Case[] = [
    { label: 'a fragment', exchange: () => ({ path: '/-/v1/search?text=hot#x' }), status: 200 },
    { label: 'a semicolon', exchange: () => ({ path: '/-/v1/search?text=hot;x' }), status: 200 },
    { label: 'a trailing slash', exchange: () => ({ path: '/-/v1/search/?text=hot' }), status: 200 },
  ];
  it.each(fallThrough)('$label: left to fastify', async (c) => {
    await comparePair(target, c.exchange(), { status: c.status, hot: false });
  });
});

describe('past the rate limit', () => {
  let target: Target;

  beforeAll(async () => {
    // Redis counts windows by its own clock; in memory, with the clock stopped, Retry-After and
    // the window's end are the same for every request.
    target = await startTarget({ profile: 'embedded', settings: { rateLimitAnonymous: 3, rateLimitAuthenticated: 3 } });
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
  });
  afterAll(async () => {
    vi.useRealTimers();
    await closeTarget(target);
  });

  it('the 429 answers (Retry-After, X-RateLimit-*) are the same, anonymous and authenticated', async () => {
    const { url } = target.registry;
    // Logging in is an anonymous request (1 of 3); publishing an authenticated one (1 of 3).
    const token = await loginUser(url, 'limited');
    await publishOn(url, new URL(url).host, token, HOT, '1.0.0', { readme: README });

    // Anonymous requests 2 and 3: the last ones allowed.
    await comparePair(target, { path: `/${HOT}` }, { status: 200 });
    const { fastify } = await comparePair(target, { path: `/${HOT}` }, { status: 429 });
    expect(header(fastify, 'retry-after')).toBe('3600');
    await comparePair(target, { path: `/${HOT}/-/${HOT}-1.0.0.tgz` }, { status: 429 });
    await comparePair(target, { path: '/-/whoami' }, { status: 429 });
    await comparePair(target, { path: `/${UNKNOWN}`, headers: { 'accept-encoding': 'gzip' } }, { status: 429 });

    // The user's requests 2 and 3, then 429.
    await comparePair(target, { path: '/-/whoami', headers: bearer(token) }, { status: 200 });
    await comparePair(target, { path: '/-/whoami', headers: bearer(token) }, { status: 429 });
    await comparePair(target, { path: `/${HOT}`, headers: bearer(token) }, { status: 429 });
    // Fastify answers the 429 of requests the hot path leaves to it alike.
    await comparePair(target, { method: 'HEAD', path: `/${HOT}` }, { status: 429, hot: false });
  });
});

describe('a package from an uplink', () => {
  const COVERED = 'com.upstream.hot';
  let upstream: TestRegistry;
  let target: Target;

  beforeAll(async () => {
    upstream = await startRegistry();
    const token = await loginUser(upstream.url, 'upstream-publisher');
    const { body } = publishBody(COVERED, '1.0.0', { readme: README, manifest: { dependencies: DEPENDENCIES } });
    expect((await request(`${upstream.url}/${COVERED}`, { method: 'PUT', token, body })).status).toBe(201);
    // maxAge 0: every request of a pair revalidates upstream, so both take the same way.
    const uplinks = [{ name: 'upstream', url: upstream.url, packages: ['com.upstream.*'], maxAge: 0, timeout: 5 }];
    target = await startTarget({ settings: { ...HIGH_LIMITS, uplinks: JSON.stringify(uplinks) } });
  });
  afterAll(async () => {
    await closeTarget(target);
    await upstream?.close().catch(() => undefined);
  });

  const tarball = `/${COVERED}/-/${COVERED}-1.0.0.tgz`;
  const cases: Case[] = [
    { label: 'the full document', exchange: () => ({ path: `/${COVERED}` }), status: 200 },
    {
      label: 'the abbreviated document, gzip',
      exchange: () => ({ path: `/${COVERED}`, headers: { accept: NPM_ACCEPT, 'accept-encoding': 'gzip' } }),
      status: 200,
    },
    { label: 'its tarball', exchange: () => ({ path: tarball }), status: 200 },
    { label: 'a covered name the upstream does not have', exchange: () => ({ path: '/com.upstream.none' }), status: 404 },
  ];
  it.each(cases)('$label: the hot path answers as fastify does', async (c) => {
    await comparePair(target, c.exchange(), { status: c.status });
  });

  it('with the upstream stopped: stale documents and 503s, the same both ways', async () => {
    await upstream.close();
    // Two failures, then the first request of the stale pair is the third: the circuit opens,
    // and both answers of each pair are given the same way (the stale one from memory).
    for (let i = 0; i < 2; i++) expect((await send(target, { path: `/com.upstream.warm-up-${i}` })).status).toBe(503);
    const stale = await comparePair(target, { path: `/${COVERED}` }, { status: 200 });
    expect(header(stale.fastify, 'x-uplink-stale')).toBe('true');
    const unavailable = await comparePair(target, { path: '/com.upstream.never-cached' }, { status: 503 });
    expect(header(unavailable.fastify, 'retry-after')).toBeDefined();
  });
});
