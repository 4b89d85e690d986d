// Seeding a registry through its real HTTP API: log in, then publish versions as `npm publish`
// does, several at a time.
import { requestJson } from './http.js';
import { manifestOf, publishBody, randomPayload, tarballWith } from './tarballs.js';
import { corpusPackages } from './corpus.js';

export const BENCH_USER = { name: 'bench', password: 'bench-password-1', email: 'bench@example.com' };

/** Logs in (creating the account) the way npm does, and returns the token. */
export async function login(baseUrl, user = BENCH_USER) {
  const res = await requestJson(`${baseUrl}/-/user/org.couchdb.user:${user.name}`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      _id: `org.couchdb.user:${user.name}`,
      name: user.name,
      password: user.password,
      email: user.email,
      type: 'user',
      roles: [],
      date: new Date().toISOString(),
    }),
  });
  if (res.status !== 201 && res.status !== 200)
    throw new Error(`login failed: ${res.status} ${res.body.toString().slice(0, 200)}`);
  return res.json.token;
}

export async function publish(baseUrl, token, body, name) {
  const res = await requestJson(`${baseUrl}/${name}`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body,
  });
  if (res.status !== 201 && res.status !== 200) {
    throw new Error(`publish of ${name} failed: ${res.status} ${res.body.toString().slice(0, 300)}`);
  }
  return res;
}

/** The packages every workload reads, by role. */
export const SPECIAL = {
  doc20: 'com.bench.document-20',
  doc100: 'com.bench.document-100',
  bigTarball: 'com.bench.tarball-100k',
  /** On the upstream registry only: the document of the proxied-document workload (an uplink). */
  proxied: 'com.benchup.document-20',
};

/** The namespace our registry serves from the upstream registry (its `uplinks` setting). */
export const PROXIED_NAMESPACE = 'com.benchup.*';

/**
 * Seeds the upstream registry of the proxied-document workload: one package whose document has
 * the shape and size of the local 20-version document, so the two workloads compare directly.
 */
export async function seedUpstream(baseUrl, token, { tarballSize }) {
  const spec = specialSpec(SPECIAL.proxied);
  for (let v = 0; v < 20; v++) {
    const manifest = manifestOf(spec, versionOf(v));
    await publish(
      baseUrl,
      token,
      publishBody(manifest, tarballWith(manifest, randomPayload(tarballSize)), `# ${spec.name}\n`),
      spec.name,
    );
  }
}

export const versionOf = (i) => `${1 + Math.floor(i / 10)}.${i % 10}.0`;

/** About 700 bytes of extra manifest: a version record of a real Unity package is about 1 KB. */
function specialSpec(name) {
  return {
    name,
    description: `${name}: benchmark package whose document has the size of a real one. `.repeat(3),
    keywords: ['bench', 'document', 'size', 'unity', 'tools'],
    author: 'Bench Author <bench@example.com>',
    displayName: 'Bench Document',
    repository: `https://git.example/bench/${name}`,
    dependencies: { 'com.bench.dep-a': '1.0.0', 'com.bench.dep-b': '2.1.0', 'com.unity.ugui': '1.0.0' },
    extra: {
      samples: [{ displayName: 'Example scene', description: 'A scene showing the package at work.', path: 'Samples~/Example' }],
    },
  };
}

/**
 * Publishes the benchmark registry: the three special packages (a 20-version and a 100-version
 * document, a 100 KB tarball) and `packages` corpus packages of `versions` versions each, with
 * incompressible tarballs of `tarballSize` bytes. Versions of one package go in order; different
 * packages go `concurrency` at a time.
 */
export async function seedRegistry(baseUrl, token, { packages, versions, tarballSize, concurrency = 8, log = () => {} }) {
  const started = Date.now();
  const sequential = async (name, count, size) => {
    const spec = specialSpec(name);
    for (let v = 0; v < count; v++) {
      const manifest = manifestOf(spec, versionOf(v));
      await publish(baseUrl, token, publishBody(manifest, tarballWith(manifest, randomPayload(size)), `# ${name}\n`), name);
    }
  };
  await Promise.all([
    sequential(SPECIAL.doc20, 20, tarballSize),
    sequential(SPECIAL.doc100, 100, tarballSize),
    sequential(SPECIAL.bigTarball, 1, 100 * 1024),
  ]);

  const specs = [...corpusPackages(packages)];
  let done = 0;
  // Version-major order: concurrent publishes are of different packages.
  function* jobs() {
    for (let v = 0; v < versions; v++) for (const spec of specs) yield { spec, version: versionOf(v) };
  }
  const iterator = jobs();
  const total = packages * versions;
  let nextReport = Date.now() + 10_000;
  async function worker() {
    for (let job = iterator.next(); !job.done; job = iterator.next()) {
      const { spec, version } = job.value;
      const manifest = manifestOf(spec, version);
      await publish(
        baseUrl,
        token,
        publishBody(manifest, tarballWith(manifest, randomPayload(tarballSize)), spec.readme),
        spec.name,
      );
      done++;
      if (Date.now() > nextReport) {
        nextReport = Date.now() + 10_000;
        log(`  published ${done}/${total} (${Math.round(done / ((Date.now() - started) / 1000))}/s)`);
      }
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker));
  return { publishes: 121 + total, seconds: (Date.now() - started) / 1000, names: specs.map((s) => s.name) };
}
