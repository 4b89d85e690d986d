import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { publishBody } from '../publish-body.js';
import { LoadClient, sendRaw, type RawRequest } from './http.js';
import { Random } from './random.js';
import { publish, signUp } from './registry-actions.js';
import { ResultBuilder, type ScenarioResult } from './results.js';
import type { Target } from './target.js';

export interface FuzzOptions {
  seed: number;
  /** Requests to send (the bound of the scenario). */
  requests: number;
  /** Requests in flight at once. */
  concurrency?: number;
}

/** Every route of the server, with the methods it takes (`{x}`: filled per request). */
const ROUTES: { methods: string[]; path: string }[] = [
  { methods: ['GET', 'HEAD'], path: '/{name}' },
  { methods: ['PUT'], path: '/{name}' },
  { methods: ['GET'], path: '/{name}/{version}' },
  { methods: ['GET', 'HEAD'], path: '/{name}/-/{file}' },
  { methods: ['PUT'], path: '/{name}/-rev/{rev}' },
  { methods: ['DELETE'], path: '/{name}/-rev/{rev}' },
  { methods: ['DELETE'], path: '/{name}/-/{file}/-rev/{rev}' },
  { methods: ['GET'], path: '/-/package/{name}/dist-tags' },
  { methods: ['PUT', 'DELETE'], path: '/-/package/{name}/dist-tags/{tag}' },
  { methods: ['PUT', 'GET'], path: '/-/user/{id}' },
  { methods: ['DELETE'], path: '/-/user/token/{token}' },
  { methods: ['GET'], path: '/-/whoami' },
  { methods: ['GET'], path: '/-/ping' },
  { methods: ['GET'], path: '/-/v1/search?{query}' },
  { methods: ['GET'], path: '/-/all' },
  { methods: ['POST'], path: '/-/v1/login' },
  { methods: ['GET'], path: '/-/v1/login/done/{secret}' },
  { methods: ['GET'], path: '/-/health' },
  { methods: ['GET'], path: '/-/metrics' },
  { methods: ['GET'], path: '/' },
  { methods: ['GET'], path: '/-/web/search?{query}' },
  { methods: ['GET'], path: '/-/web/package/{name}' },
  { methods: ['GET', 'POST'], path: '/-/web/signin' },
  { methods: ['POST'], path: '/-/web/signout' },
  { methods: ['GET'], path: '/-/web/account' },
  { methods: ['POST'], path: '/-/web/account/tokens/revoke' },
  { methods: ['GET', 'POST'], path: '/-/web/login/{secret}' },
  { methods: ['GET'], path: '/-/web/login-complete' },
  { methods: ['GET'], path: '/-/web/assets/{file}' },
  { methods: ['GET'], path: '/downloads/point/{period}/{name}' },
  { methods: ['GET'], path: '/downloads/range/{period}/{name}' },
  { methods: ['GET', 'PUT', 'POST', 'DELETE'], path: '/{garbage}' },
];
const METHODS = ['GET', 'HEAD', 'PUT', 'POST', 'DELETE', 'PATCH', 'OPTIONS', 'TRACE', 'PROPFIND', 'get', 'G ET'];

/** The registry domain the fuzzed registry runs with (setting registryDomain); tenant `acme` exists under it. */
export const TENANT_DOMAIN = 'registry.test';

const FIXTURES: Record<string, string[]> = {
  'com.fixture.alpha': ['1.0.0', '1.1.0'],
  'com.fixture.beta': ['2.0.0'],
};

const GARBAGE_SEGMENTS = [
  '..',
  '%2e%2e',
  '%2E%2e%2f..%2f..%2fetc%2fpasswd',
  '.',
  '',
  '%00',
  '%',
  '%zz',
  '%E0%A4%A',
  '%F0%9F%92%A9',
  'Com.Fixture.Alpha',
  '@scope%2fname',
  'com..fixture',
  'com.fixture.alpha%2f..%2fbeta',
  `com.${'a'.repeat(300)}`,
  'x'.repeat(5000),
  'com.fixture.alpha;rm -rf',
  "com.fixture.alpha'--",
  '<script>alert(1)</script>',
  '\u00e9t\u00e9',
  'com.fixture.alpha?write=true',
  'com.fixture.alpha#frag',
  'com.fixture.alpha%0d%0aX-Injected:%201',
];

/**
 * Seeded, bounded fuzzing of every route: bodies, headers, names, encodings and methods drawn
 * from a seed, sent over raw sockets. Passes with no 5xx, no request left without an answer, the
 * process alive, and the fixture packages (owned by another account) byte for byte unchanged.
 */
export async function fuzzScenario(target: Target, options: FuzzOptions): Promise<ScenarioResult> {
  const result = new ResultBuilder('fuzz every route', target.profile);
  const client = new LoadClient(target.url);
  try {
    const owner = await signUp(client, 'fixture-owner');
    for (const [name, versions] of Object.entries(FIXTURES)) {
      for (const version of versions) {
        const res = await publish(client, owner, name, version);
        if (res.status !== 201) throw new Error(`fixture ${name}@${version}: ${res.status ?? res.failure}`);
      }
    }
    const fuzzer = await signUp(client, 'fuzzer');
    // A tenant too (the registry runs with registryDomain TENANT_DOMAIN), so that tenant hosts,
    // unknown tenants and odd Host headers are part of the fuzz.
    const created = await target.admin(['tenant', 'create', 'acme']);
    if (created.code !== 0) throw new Error(`tenant create failed: ${created.stderr}`);
    const before = await snapshot(client);

    const random = new Random(options.seed);
    const statuses = new Map<string, number>();
    let next = 0;
    let failed = false;
    const worker = async () => {
      while (next < options.requests && !failed) {
        const i = next++;
        const request = makeRequest(random, fuzzer, new URL(target.url).port);
        const outcome = await sendRaw(target.url, request);
        result.requests++;
        const key = outcome.status === undefined ? 'no answer' : `${Math.floor(outcome.status / 100)}xx`;
        statuses.set(key, (statuses.get(key) ?? 0) + 1);
        if (outcome.status === undefined || outcome.status >= 500) {
          result.problem(
            `#${i} ${request.method} ${request.target.slice(0, 120)} → ${outcome.status ?? outcome.failure} (seed ${options.seed})`,
          );
        }
      }
    };
    // One worker's exception stops them all before the registry is closed under them.
    await Promise.all(
      Array.from({ length: options.concurrency ?? 8 }, () =>
        worker().catch((err: unknown) => {
          failed = true;
          throw err;
        }),
      ),
    );

    const after = await snapshot(client);
    const changed = Object.keys(before).filter((key) => before[key] !== after[key]);
    result.check(changed.length === 0, `fixture packages changed: ${changed.join(', ')}`);
    result.check(target.alive() && target.deaths === 0, `the server died: ${target.deathReasons.join('; ')}`);
    const ping = await client.request('GET', '/-/ping');
    result.check(ping.status === 200, `the server does not answer after fuzzing: ${ping.status ?? ping.failure}`);
    result.facts.push(
      `seed ${options.seed}`,
      [...statuses.entries()]
        .sort()
        .map(([k, n]) => `${n} × ${k}`)
        .join(', '),
      `${target.deaths} deaths`,
      `${changed.length} fixture changes`,
    );
  } catch (err) {
    result.problem(`could not run: ${(err as Error).message}`);
  } finally {
    client.close();
  }
  return result.finish();
}

/** The fixtures as a reader sees them: each full document and the hash of each tarball. */
async function snapshot(client: LoadClient): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const [name, versions] of Object.entries(FIXTURES)) {
    const doc = await client.request('GET', `/${name}?write=true`);
    out[name] = `${doc.status} ${doc.body.toString('utf8')}`;
    for (const version of versions) {
      const tarball = await client.request('GET', `/${name}/-/${name}-${version}.tgz`);
      out[`${name}@${version}`] = `${tarball.status} ${createHash('sha256').update(tarball.body).digest('hex')}`;
    }
  }
  return out;
}

function makeRequest(random: Random, fuzzerToken: string, port: string): RawRequest {
  const route = random.pick(ROUTES);
  const method = random.chance(0.85) ? random.pick(route.methods) : random.pick(METHODS);
  const fixture = random.pick(Object.keys(FIXTURES));
  const name = random.chance(0.6)
    ? random.pick([fixture, fixture, `com.fuzz.p${random.int(20)}`, `com.fuzz.new${random.int(1_000_000)}`])
    : random.pick(GARBAGE_SEGMENTS);
  const version = random.chance(0.6) ? random.pick(['1.0.0', '1.1.0', '2.0.0', `1.0.${random.int(50)}`]) : garbageString(random);
  const fill: Record<string, () => string> = {
    name: () => name,
    version: () => version,
    file: () => (random.chance(0.6) ? `${name}-${version}.tgz` : random.pick([...GARBAGE_SEGMENTS, 'app.css', 'logo.svg'])),
    rev: () => random.pick([`1-${'0'.repeat(32)}`, '', garbageString(random), `${random.int(10)}-abc`]),
    tag: () => random.pick(['latest', 'beta', '1.x', '', garbageString(random), 'x'.repeat(300)]),
    id: () =>
      random.pick([`org.couchdb.user:${random.pick(['fuzzer', 'fixture-owner', garbageString(random)])}`, garbageString(random)]),
    token: () => random.pick([fuzzerToken.slice(0, 10), garbageString(random), 'x'.repeat(600)]),
    secret: () => random.pick([garbageString(random), 'A'.repeat(43)]),
    period: () =>
      random.pick(['last-week', 'last-month', '2025-01-01:2025-02-01', '2025-13-01:2024-01-01', garbageString(random)]),
    query: () => randomQuery(random),
    garbage: () => Array.from({ length: 1 + random.int(4) }, () => random.pick(GARBAGE_SEGMENTS)).join('/'),
  };
  let target = route.path.replace(/\{(\w+)\}/g, (_m, key: string) => fill[key]!());
  if (random.chance(0.03)) target = random.pick(['*', 'http://evil.example/', '//double//slashes', target.replace(/\//g, '\\')]);
  if (random.chance(0.05)) target += `?${randomQuery(random)}`;
  // Bytes a request line cannot carry would be a test of our client, not of the server.
  target = [...target].map((c) => (c.charCodeAt(0) <= 0x20 || c.charCodeAt(0) === 0x7f ? encodeAny(c) : c)).join('');

  const headers: [string, string][] = [];
  const auth = random.int(5);
  if (auth === 0) headers.push(['Authorization', `Bearer ${fuzzerToken}`]);
  if (auth === 1)
    headers.push([
      'Authorization',
      random.pick(['Bearer ', 'Bearer x', `Bearer ${'a'.repeat(2000)}`, 'Basic Zm9vOmJhcg==', 'Bearer']),
    ]);
  if (random.chance(0.3))
    headers.push([
      'Accept',
      random.pick(['application/vnd.npm.install-v1+json', 'text/html', '*/*', 'application/json; q=0', garbageString(random)]),
    ]);
  if (random.chance(0.2))
    headers.push(['Accept-Encoding', random.pick(['gzip', 'br', 'deflate', 'identity;q=0', garbageString(random)])]);
  if (random.chance(0.1)) headers.push(['If-None-Match', random.pick(['*', '"x"', 'W/"abc"', garbageString(random)])]);
  if (random.chance(0.1)) headers.push(['If-Modified-Since', random.pick(['Thu, 01 Jan 1970 00:00:00 GMT', 'yesterday', ''])]);
  if (random.chance(0.05)) headers.push(['X-Forwarded-For', garbageString(random)]);
  if (random.chance(0.05)) headers.push(['Cookie', `pkg_session=${garbageString(random)}; pkg_csrf=${garbageString(random)}`]);

  let body: Buffer | undefined;
  if (method !== 'GET' && method !== 'HEAD' && random.chance(0.9)) {
    const { bytes, contentType } = randomBody(random, route.path, name, version);
    body = bytes;
    headers.push([
      'Content-Type',
      random.chance(0.9)
        ? contentType
        : random.pick(['text/plain', 'application/octet-stream', 'multipart/form-data', garbageString(random)]),
    ]);
    if (random.chance(0.08)) {
      headers.push(['Content-Encoding', random.pick(['gzip', 'deflate', 'br', 'compress', garbageString(random)])]);
      if (random.chance(0.5)) body = gzipSync(body);
    }
  }
  // A Content-Length shorter than the body (one longer would leave the server waiting, rightly,
  // for bytes that never come).
  if (body && body.length > 0 && random.chance(0.03))
    headers.push(['Content-Length', String(body.length - 1 - random.int(body.length))]);
  const host = random.chance(0.7)
    ? undefined
    : random.pick([
        `acme.${TENANT_DOMAIN}:${port}`,
        `acme.${TENANT_DOMAIN}:${port}`,
        `${TENANT_DOMAIN}:${port}`,
        `nope.${TENANT_DOMAIN}`,
        `ACME.${TENANT_DOMAIN.toUpperCase()}.`,
        `..${TENANT_DOMAIN}`,
        `${'a'.repeat(70)}.${TENANT_DOMAIN}`,
        '[::1]:80',
        '',
        garbageString(random).replace(/[\r\n]/g, ' '),
      ]);
  return {
    method,
    target,
    headers: headers.map(([k, v]) => [k, v.replace(/[\r\n]/g, ' ')]),
    body,
    ...(host !== undefined ? { host } : {}),
  };
}

function randomBody(random: Random, route: string, name: string, version: string): { bytes: Buffer; contentType: string } {
  const asJson = (value: unknown) => ({ bytes: Buffer.from(JSON.stringify(value) ?? 'null'), contentType: 'application/json' });
  const kind = random.int(10);
  if (kind === 0) return { bytes: random.bytes(random.int(2048)), contentType: 'application/json' };
  if (kind === 1) return { bytes: Buffer.from(`${'['.repeat(200 + random.int(5000))}1`), contentType: 'application/json' };
  if (kind === 2) {
    const text = JSON.stringify(publishBody(name.length < 200 ? name : 'com.fuzz.x', '1.0.0').body);
    return { bytes: Buffer.from(text.slice(0, random.int(text.length))), contentType: 'application/json' };
  }
  if (route.includes('/-/web/')) {
    const fields = ['name', 'password', 'email', 'csrf', 'token'].filter(() => random.chance(0.6));
    return {
      bytes: Buffer.from(fields.map((f) => `${f}=${encodeAny(garbageString(random))}`).join('&')),
      contentType: 'application/x-www-form-urlencoded',
    };
  }
  if (route.includes('dist-tags')) return asJson(random.chance(0.5) ? version : mutate(random, version, 0));
  if (route.includes('/-/user/')) {
    return asJson(
      mutate(random, { name: 'fuzzer', password: 'fuzzer-password', email: 'f@example.com', type: 'user', roles: [] }, 0),
    );
  }
  const plausible = publishBody(
    /^[a-z0-9.-]{3,100}$/.test(name) ? name : 'com.fuzz.x',
    /^\d+\.\d+\.\d+$/.test(version) ? version : '1.0.0',
  ).body;
  return asJson(random.chance(0.2) ? plausible : mutate(random, plausible, 0));
}

/** The value with random parts deleted, replaced or added: shapes a client might get wrong. */
function mutate(random: Random, value: unknown, depth: number): unknown {
  if (depth > 5 || random.chance(0.05)) return randomValue(random);
  if (Array.isArray(value)) return value.map((v) => mutate(random, v, depth + 1));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, v] of Object.entries(value)) {
      if (random.chance(0.1)) continue;
      out[key] = random.chance(0.15) ? randomValue(random) : mutate(random, v, depth + 1);
    }
    if (random.chance(0.1))
      out[random.pick(['__proto__', 'constructor', '_rev', 'versions', 'dist-tags', garbageString(random)])] =
        randomValue(random);
    return out;
  }
  if (typeof value === 'string' && random.chance(0.2)) return garbageString(random);
  return value;
}

function randomValue(random: Random): unknown {
  return random.pick<() => unknown>([
    () => null,
    () => true,
    () => -1,
    () => 1e308,
    () => 2 ** 53 + 1,
    () => '',
    () => garbageString(random),
    () => 'x'.repeat(random.int(100_000)),
    () => [],
    () => ({}),
    () => [[[[[[[[[[{}]]]]]]]]]],
    () => ({ __proto__: { polluted: true } }),
    () => Object.fromEntries(Array.from({ length: random.int(500) }, (_, i) => [`k${i}`, i])),
  ])();
}

function garbageString(random: Random): string {
  return random.pick<() => string>([
    () => random.bytes(1 + random.int(40)).toString('latin1'),
    () => random.bytes(1 + random.int(40)).toString('base64'),
    () => '\u0000\ud800\uffff',
    () => '../../../../etc/passwd',
    () => '%00%ff%c0%af',
    () => '${jndi:ldap://x}',
    () => "'; DROP TABLE packages; --",
    () => '🙂'.repeat(1 + random.int(20)),
    () => String(random.int(1e9)),
    () => 'a'.repeat(1 + random.int(3000)),
  ])();
}

function randomQuery(random: Random): string {
  const params = ['text', 'size', 'from', 'quality', 'popularity', 'maintenance', 'detail', 'write'];
  return Array.from({ length: random.int(4) }, () => {
    const key = random.chance(0.8) ? random.pick(params) : garbageString(random);
    const value = random.pick([
      '',
      '1',
      '-1',
      '250',
      '251',
      '1e309',
      'NaN',
      'com.fixture',
      garbageString(random),
      'keywords:x author:y',
    ]);
    return `${encodeAny(key)}=${encodeAny(value)}`;
  }).join('&');
}

/** encodeURIComponent that also takes lone surrogates (which it would throw on): as U+FFFD. */
function encodeAny(text: string): string {
  return encodeURIComponent(text.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd'));
}
