import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { expect } from 'vitest';
import {
  loginUser,
  provenanceBundle,
  publishBody,
  registryHost,
  request,
  startRegistry,
  type StartRegistryOptions,
  type TestRegistry,
} from '@pkg/testkit';

/**
 * The harness of the hot path's parity tests (one file per scenario beside this one). The hot
 * path (src/hot-path/) answers package documents, files, whoami and search before fastify sees
 * them, running the same request steps; it must answer exactly as the fastify routes do. Each request below is sent twice in a row,
 * once with the hot path on and once with it off (every request through fastify), and the two
 * answers are compared byte for byte: status, header names, their order and values (but the
 * date and the moving rate-limit figures), body bytes as sent (no decompression), the request
 * log line and the /-/metrics request counters. Fastify's answer is the reference.
 */

export const NPM_ACCEPT = 'application/vnd.npm.install-v1+json; q=1.0, application/json; q=0.8, */*';
export const DOMAIN = 'registry.test';
export const HOT = 'com.acme.hot';
export const SIGNED = 'com.acme.signed';
export const UNKNOWN = 'com.acme.nope';
/** High enough never to be reached, low enough to be on: every answer carries X-RateLimit-*. */
export const HIGH_LIMITS = { rateLimitAnonymous: 100_000, rateLimitAuthenticated: 100_000 };
/** Over 1 KiB: the full document is compressed. */
export const README = `# Hot\n\n${'A package the hot path serves. '.repeat(80)}\n`;
/** Enough dependencies that the abbreviated document is over 1 KiB too. */
export const DEPENDENCIES = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`com.acme.dependency-${i}`, `^1.${i}.0`]));
/** Headers whose values may differ between the two answers of a pair (remaining is checked apart). */
const VOLATILE = new Set(['date', 'x-ratelimit-remaining', 'x-ratelimit-reset']);

/** A registry under test and the keep-alive agent that talks to it (as npm does). */
export interface Target {
  registry: TestRegistry;
  agent: http.Agent;
}

export interface Exchange {
  method?: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
  /** Send the body chunked (no Content-Length). */
  chunked?: boolean;
}

export interface Reply {
  status: number;
  /** As received: name, value, name, value, ... */
  rawHeaders: string[];
  body: Buffer;
  /** False when the connection ended before the whole body came. */
  complete: boolean;
}

export interface Case {
  label: string;
  exchange: () => Exchange;
  /** Fastify's status, to make sure each case tests what it says. */
  status: number;
  /** Whether the hot path answers the request (default) or leaves it to fastify. */
  hot?: boolean;
  /** Refused by fastify before routing: not in the request metrics. */
  uncounted?: boolean;
}

export async function startTarget(options: StartRegistryOptions): Promise<Target> {
  const registry = await startRegistry({ captureLogs: true, ...options });
  return { registry, agent: new http.Agent({ keepAlive: true }) };
}

export async function closeTarget(target: Target | undefined): Promise<void> {
  if (!target) return;
  target.agent.destroy();
  await target.registry.close();
}

/** One request over node:http: the path as written (no URL normalization), the body not decoded. */
export function send(target: Target, exchange: Exchange): Promise<Reply> {
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

export function header(reply: Reply, name: string): string | undefined {
  for (let i = 0; i < reply.rawHeaders.length; i += 2) {
    if (reply.rawHeaders[i]!.toLowerCase() === name) return reply.rawHeaders[i + 1];
  }
  return undefined;
}

/** The headers in order, as `Name: value`, volatile values blanked. */
export function headerView(reply: Reply): string[] {
  const view: string[] = [];
  for (let i = 0; i < reply.rawHeaders.length; i += 2) {
    const name = reply.rawHeaders[i]!;
    view.push(`${name}: ${VOLATILE.has(name.toLowerCase()) ? '…' : reply.rawHeaders[i + 1]}`);
  }
  return view;
}

/** The body as text (decompressed when it is), to show what differs. */
export function bodyText(reply: Reply): string {
  const coding = header(reply, 'content-encoding');
  try {
    const bytes = coding === 'gzip' ? gunzipSync(reply.body) : coding === 'br' ? brotliDecompressSync(reply.body) : reply.body;
    return bytes.toString('utf8').slice(0, 4000);
  } catch (err) {
    return `(not ${coding}: ${(err as Error).message})`;
  }
}

/** What tells two bodies apart when their decoded text is the same (compressed bytes). */
export function bodySummary(reply: Reply): { length: number; sha256: string } {
  return { length: reply.body.length, sha256: createHash('sha256').update(reply.body).digest('hex') };
}

/** Polls `read` until `done` holds (log lines and metrics are written when a response finishes). */
export async function eventually<T>(read: () => T | Promise<T>, done: (value: T) => boolean): Promise<T> {
  const deadline = performance.now() + 5000;
  for (;;) {
    const value = await read();
    if (done(value) || performance.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

/** Request lines of the log written since `mark`, without the scrapes of /-/metrics. */
export function requestLinesSince(registry: TestRegistry, mark: number): Record<string, unknown>[] {
  return registry.logLines
    .slice(mark)
    .flatMap((chunk) => chunk.split('\n'))
    .filter((line) => line.length > 0)
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((entry) => entry.msg === 'request' && entry.url !== '/-/metrics');
}

/** `requests <method> <route> <status>` and `rejections <route>` → count, as GET /-/metrics tells them. */
export async function scrape(target: Target): Promise<Map<string, number>> {
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

export function countsSince(before: Map<string, number>, after: Map<string, number>): Record<string, number> {
  const delta: Record<string, number> = {};
  for (const [key, value] of after) {
    const grown = value - (before.get(key) ?? 0);
    if (grown !== 0) delta[key] = grown;
  }
  return delta;
}

export function total(delta: Record<string, number>, prefix: string): number {
  let sum = 0;
  for (const key in delta) if (key.startsWith(prefix)) sum += delta[key]!;
  return sum;
}

/** `req-1f` → 51: fastify and the hot path number requests from one counter. */
export function requestNumber(reqId: unknown): number {
  return parseInt(String(reqId).replace(/^req-/, ''), 36);
}

/** The route label fastify gives a request the hot path answers. */
export function hotRouteLabel(path: string): string {
  if (path === '/-/whoami') return '/-/whoami';
  if (path.startsWith('/-/v1/search')) return '/-/v1/search';
  return path.includes('/-/') ? '/:name/-/:file' : '/:name';
}

/**
 * Sends `exchange` with the hot path on, then off (or the other way round), and checks that the
 * two answers, log lines and metrics agree. Returns fastify's answer.
 */
export async function comparePair(
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
export async function publishOn(url: string, host: string, token: string, name: string, version: string, options = {}) {
  const { body } = publishBody(name, version, options);
  const res = await registryHost(url, host).request(`/${name}`, { method: 'PUT', token, body });
  expect(res.status, `publish ${name}@${version}: ${res.text}`).toBe(201);
}

export function bearer(token: string): Record<string, string> {
  return { authorization: `Bearer ${token}` };
}

/** The global registry most scenarios use: HOT in two versions (one tarball over 1 MiB), SIGNED with a .sigstore, two users. */
export interface GlobalRegistry {
  target: Target;
  token: string;
  otherToken: string;
  /** The etags and Last-Modified of HOT's answers, for conditional requests. */
  tags: Record<'identity' | 'gzip' | 'abbreviated' | 'lastModified' | 'tarball', string>;
}

export async function startGlobalRegistry(): Promise<GlobalRegistry> {
  const target = await startTarget({ settings: HIGH_LIMITS });
  const tags: GlobalRegistry['tags'] = { identity: '', gzip: '', abbreviated: '', lastModified: '', tarball: '' };
  const { url } = target.registry;
  const token = await loginUser(url, 'alice');
  const otherToken = await loginUser(url, 'bob');
  const manifest = { dependencies: DEPENDENCIES, license: 'MIT', keywords: ['hot', 'path'] };
  await publishOn(url, new URL(url).host, token, HOT, '1.0.0', { manifest, readme: README });
  // Over 1 MiB: the blob store streams this tarball instead of reading it whole.
  await publishOn(url, new URL(url).host, token, HOT, '1.1.0', {
    manifest,
    readme: README,
    files: [{ path: 'Runtime/data.bin', content: randomBytes(1_200_000) }],
  });
  const signed = publishBody(SIGNED, '1.0.0');
  const bundle = await provenanceBundle(SIGNED, '1.0.0', signed.tarball);
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
  return { target, token, otherToken, tags };
}
