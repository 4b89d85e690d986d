// Seeding a large registry fast: the documents a publish of each corpus version would store,
// built with the server's own pieces from the built dist (tarball inspection, the registry's
// signing key and message, the latest-version fields, revisions, tarball paths) and written
// through the storage drivers `serve` opens on the same data directory or database (a write of
// many packages at once, with their search rows and storage usage; the tarballs through the
// blob store).
// Going through PublishService in process measured 66–96 versions/s here, most of it a write
// and a key parse per version; this writes a package of two versions in about 1 ms.
// `verifySeed` checks a sample against the same packages published through the HTTP API.
import { fork } from 'node:child_process';
import { createHash, createPrivateKey, createPublicKey, sign, verify } from 'node:crypto';
import fs from 'node:fs';
import { open } from 'node:fs/promises';
import { syncBuiltinESMExports } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { clearInterval, setInterval } from 'node:timers';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { corpusPackages, prng } from './corpus.js';
import { requestJson } from './http.js';
import { publish, versionOf } from './seed.js';
import { manifestOf, publishBody, tarballWith } from './tarballs.js';
import { repoRoot } from './targets.js';

/** The publisher of every seeded version: the benchmark's account (BENCH_USER in seed.js). */
const CALLER = { user: 'bench', email: 'bench@example.com', readonly: false };

const dist = (file) => import(pathToFileURL(path.join(repoRoot, 'packages/server/dist', file)).href);

/**
 * An incompressible tar entry and the end of the archive, gzipped, the same bytes on every run
 * (a tarball's integrity must not change between a seeded registry and its API-published twin).
 */
export function fixedPayload(size) {
  const random = prng(size);
  const data = Buffer.alloc(Math.max(0, size - 600));
  for (let i = 0; i < data.length; i++) data[i] = (random() * 256) >>> 0;
  const header = Buffer.alloc(512);
  header.write('package/payload.bin', 0);
  header.write('0000644\0', 100);
  header.write('0000000\0', 108);
  header.write('0000000\0', 116);
  header.write(data.length.toString(8).padStart(11, '0') + '\0', 124);
  header.write('00000000000\0', 136);
  header.write('        ', 148);
  header.write('0', 156);
  header.write('ustar\0', 257);
  header.write('00', 263);
  let sum = 0;
  for (const byte of header) sum += byte;
  header.write(sum.toString(8).padStart(6, '0') + '\0 ', 148);
  const pad = Buffer.alloc((512 - (data.length % 512)) % 512);
  return gzipSync(Buffer.concat([header, data, pad, Buffer.alloc(1024)]), { level: 1 });
}

/** The publish body of corpus package `spec` at version index `v`. */
export function corpusBody(spec, v, payload) {
  const manifest = manifestOf(spec, versionOf(v));
  return publishBody(manifest, tarballWith(manifest, payload), spec.readme);
}

/**
 * Writes `packages` corpus packages × `versions` versions into each storage of `stores` (each
 * `serve`'s flags: `data`, `database`, `storage`), PACKAGES_PER_WRITE packages in each write of
 * each store (PackageStore.writePackages, with the search rows and storage usage of its
 * transaction) and each tarball through that store's blob store, `concurrency` such batches at
 * a time in each of `processes` processes (SQLite takes writers from several processes one after the other, as
 * two `serve`s on one data directory do). What does not depend on the store (the tarballs and
 * their facts and digests) is made once for all of them. Returns the names and the time taken.
 *
 * With `renderBaseUrl`, each package's forms are then rendered for that tarball base URL and kept
 * in the store's renders, as the server does after a publish (PackageReadService.renderWritten);
 * with `rendersOnly` too, only that is done, for stores seeded before without it.
 */
export async function seedThroughStore({
  stores,
  env = {},
  packages,
  versions,
  tarballSize,
  concurrency = 4,
  processes = 1,
  renderBaseUrl,
  rendersOnly = false,
  log,
}) {
  const started = Date.now();
  const names = [...corpusPackages(packages)].map((s) => s.name);
  let done = 0;
  let report = Date.now() + 10_000;
  const progress = (count) => {
    done += count;
    if (Date.now() > report) {
      report = Date.now() + 10_000;
      log?.(`  seeded ${done}/${packages} packages (${Math.round(done / ((Date.now() - started) / 1000))}/s)`);
    }
  };
  const job = { stores, env, packages, versions, tarballSize, concurrency, renderBaseUrl, rendersOnly };
  // One process makes the schemas and the signing keys first, so the others find them.
  await seedPart({ ...job, packages: 0, part: 0, parts: 1, onSeeded: progress, prepare: !rendersOnly });
  if (processes <= 1) {
    await seedPart({ ...job, part: 0, parts: 1, onSeeded: progress, finish: true });
  } else {
    await Promise.all(Array.from({ length: processes }, (_, part) => seedInChild({ ...job, part, parts: processes }, progress)));
    await seedPart({ ...job, packages: 0, part: 0, parts: 1, onSeeded: progress, finish: true });
  }
  return { names, versions: packages * versions, seconds: (Date.now() - started) / 1000 };
}

/** Runs seedPart in a child process of this module, passing its progress on. */
function seedInChild(job, onSeeded) {
  return new Promise((resolve, reject) => {
    const child = fork(fileURLToPath(import.meta.url), [SEED_WORKER], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    let finished = false;
    child.on('message', (message) => {
      if (message.seeded) onSeeded(message.seeded);
      if (message.error) reject(new Error(`seeding part ${job.part}: ${message.error}`));
      if (message.finished) finished = true;
    });
    child.on('error', reject);
    child.on('exit', (code) =>
      finished ? resolve() : reject(new Error(`seeding part ${job.part} exited with ${code} before it finished`)),
    );
    child.send(job);
  });
}

const SEED_WORKER = '--seed-worker';

if (process.argv[2] === SEED_WORKER && process.send) {
  process.once('message', (job) => {
    let pending = 0;
    const flush = () => {
      if (pending > 0) process.send({ seeded: pending });
      pending = 0;
    };
    const timer = setInterval(flush, 1000);
    seedPart({ ...job, onSeeded: (count) => (pending += count) }).then(
      () => {
        clearInterval(timer);
        flush();
        process.send({ finished: true }, () => process.exit(0));
      },
      (err) => {
        clearInterval(timer);
        process.send({ error: err.stack ?? String(err) }, () => process.exit(1));
      },
    );
  });
}

/**
 * Seeds the corpus packages whose index is `part` modulo `parts` into every store of `stores`;
 * with `finish`, then tells each store a bulk import ended (PostgreSQL gathers the statistics
 * its planner needs, as after a restore). With `prepare`, first does what a server's first start
 * on the still empty registry does before it takes publishes: the day's download-score refresh
 * (nothing to score, the day recorded), so the seeded registry's first start on the same day
 * refreshes nothing, as the registry published through the API would not (every package was
 * scored as it was written, with no downloads).
 */
async function seedPart({
  stores,
  env,
  packages,
  versions,
  tarballSize,
  concurrency,
  renderBaseUrl,
  rendersOnly,
  part,
  parts,
  onSeeded,
  finish = false,
  prepare = false,
}) {
  const { loadConfig } = await dist('config/config.js');
  const { documentRepresentation } = await dist('services/package-reads.js');
  const { createStorage } = await dist('storage/create-storage.js');
  const { RegistrySignatures, signedMessage } = await dist('services/registry-signatures.js');
  const { inspectTarball } = await dist('services/tarball-validation.js');
  const { mirrorLatestFields } = await dist('services/package-fields.js');
  const { nextRevision } = await dist('services/revisions.js');
  const { tarballPath } = await dist('services/package-document.js');
  const { blobKeyFor } = await dist('storage/blob-keys.js');
  const { PACKAGES_PER_WRITE } = await dist('storage/ports.js');
  const restoreSync = await withoutSync();
  const opened = [];
  try {
    for (const flags of stores) {
      const config = loadConfig({ flags: withoutCommitWait(flags), env });
      const storage = await createStorage(config);
      opened.push({ config, storage });
      // The same rows, written without waiting for the disk (see withoutSync).
      storage.database.db?.pragma('synchronous = OFF');
    }
    if (prepare) for (const { storage } of opened) await storage.search.refreshScores('', null, new Date());
    for (const store of opened) {
      // Each registry signs with its own key, as each would on publish.
      const signingKey = await new RegistrySignatures({ ...store.storage, now: () => new Date() }).signingKey('');
      store.signingKey = signingKey;
      store.privateKey = createPrivateKey(signingKey.privateKey);
    }
    const payload = fixedPayload(tarballSize);
    const specs = [...corpusPackages(packages)].filter((_, i) => i % parts === part);
    const limits = { maxUnpackedSize: Math.min(...opened.map((store) => store.config.maxTarballSize)) * 10 };
    /** A version's tarball and what PublishService learns from it: the same in every store. */
    // Every corpus tarball holds package/package.json and the same payload.bin, so what
    // inspectTarball finds (the file count, the unpacked size, no shrinkwrap) depends only on
    // the length of its package.json: inspected once for each length.
    const factsByJsonLength = new Map();
    const tarballOf = async (spec, v) => {
      const manifest = manifestOf(spec, versionOf(v));
      const tarball = tarballWith(manifest, payload);
      const jsonLength = Buffer.byteLength(JSON.stringify(manifest, null, 2));
      let facts = factsByJsonLength.get(jsonLength);
      if (facts === undefined) factsByJsonLength.set(jsonLength, (facts = await inspectTarball(tarball, limits)));
      return {
        manifest,
        tarball,
        facts,
        integrity: `sha512-${createHash('sha512').update(tarball).digest('base64')}`,
        shasum: createHash('sha1').update(tarball).digest('hex'),
      };
    };
    /** What PublishService stores for one more version (its #withVersion and versionRecord). */
    const withVersion = async ({ signingKey, privateKey }, current, spec, { manifest, tarball, facts, integrity, shasum }) => {
      const name = spec.name;
      const version = manifest.version;
      const signature = {
        keyid: signingKey.keyid,
        sig: sign('sha256', Buffer.from(signedMessage(name, version, integrity)), privateKey).toString('base64'),
      };
      const publisher = { name: CALLER.user, email: CALLER.email };
      // The body's version record (publishBody) less the fields the registry owns.
      const record = { ...manifest };
      const now = new Date().toISOString();
      const previous = current?.document;
      const time = { ...(previous?.time ?? {}) };
      time.created ??= now;
      time[version] = now;
      time.modified = now;
      const base = previous ?? {
        _id: name,
        _rev: '',
        name,
        'dist-tags': {},
        versions: {},
        time: {},
        maintainers: [publisher],
      };
      const versions = {
        ...base.versions,
        [version]: {
          ...record,
          name,
          version,
          _id: `${name}@${version}`,
          _npmUser: publisher,
          _hasShrinkwrap: facts.hasShrinkwrap,
          dist: {
            integrity,
            shasum,
            tarball: tarballPath(name, version),
            fileCount: facts.fileCount,
            unpackedSize: facts.unpackedSize,
            signatures: [signature],
          },
        },
      };
      const distTags = { ...base['dist-tags'], latest: version };
      let doc = { ...base, versions, 'dist-tags': distTags, time };
      doc.readme = spec.readme;
      doc = mirrorLatestFields(doc);
      doc._rev = nextRevision(previous?._rev, doc);
      return {
        document: doc,
        publishedVersions: [...(current?.publishedVersions ?? []), version],
        unpublished: false,
        usage: { added: { ...(current?.usage?.added ?? {}), [version]: { bytes: tarball.length, files: 1 } } },
      };
    };

    /** A tarball into every store: written to the first, linked (else written) to the others. */
    const putTarball = async (key, tarball) => {
      const [first, ...others] = opened;
      await first.storage.blobs.put(key, tarball);
      const source = first.storage.blobs.root && path.join(first.storage.blobs.root, key);
      for (const { storage } of others) {
        const target = source && storage.blobs.root && path.join(storage.blobs.root, key);
        if (target && (await linked(source, target))) continue;
        await storage.blobs.put(key, tarball);
      }
    };

    /**
     * Both forms of each package rendered and kept, as the server does after a write
     * (PackageReadService.renderWritten: the package read back, its forms rendered from what the
     * store answers), for a batch at once (readPackages, keepRenders).
     */
    const keepRenders = async ({ storage }, names) => {
      const kept = [];
      for (const [name, stored] of await storage.packages.readPackages('', names)) {
        for (const form of ['abbreviated', 'full']) {
          const parts = await documentRepresentation(stored, renderBaseUrl, form).storable();
          kept.push({ name, revision: stored.revision, render: { form, baseUrl: renderBaseUrl, ...parts } });
        }
      }
      await storage.renders.keepRenders('', kept);
    };

    // Packages go to each store PACKAGES_PER_WRITE at a time, in one transaction of a few
    // statements (PackageStore.writePackages, what a migration or a restore writes with).
    const batches = [];
    for (let i = 0; i < specs.length; i += PACKAGES_PER_WRITE) batches.push(specs.slice(i, i + PACKAGES_PER_WRITE));
    let next = 0;
    const worker = async () => {
      for (let i = next++; i < batches.length; i = next++) {
        const batch = batches[i];
        if (!rendersOnly) {
          const made = [];
          for (const spec of batch) {
            const tarballs = [];
            for (let v = 0; v < versions; v++) tarballs.push(await tarballOf(spec, v));
            made.push({ spec, tarballs });
          }
          // The tarballs first, as a publish writes them: each file once, and on the other
          // stores' file systems a hard link to it where they share one (the same bytes; the
          // server replaces a blob's file, never writes into it).
          for (const { spec, tarballs } of made)
            for (const { manifest, tarball } of tarballs) await putTarball(blobKeyFor('', spec.name, manifest.version), tarball);
          // The stores are written side by side: one's round trips overlap the other's work.
          await Promise.all(
            opened.map(async (store) => {
              const writes = [];
              for (const { spec, tarballs } of made) {
                let stored;
                for (const tarball of tarballs) stored = await withVersion(store, stored, spec, tarball);
                writes.push({ name: spec.name, next: stored });
              }
              await store.storage.packages.writePackages('', writes);
            }),
          );
        }
        if (renderBaseUrl !== undefined)
          await Promise.all(
            opened.map((store) =>
              keepRenders(
                store,
                batch.map((spec) => spec.name),
              ),
            ),
          );
        onSeeded(batch.length);
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
    if (finish) {
      for (const { storage } of opened) {
        // Every seeded version was signed as it was written: nothing is left for the server's
        // start-up backfill of signatures, which marks a registry published through the API on
        // its first start (then empty). Unmarked, the first start of a seeded registry reads
        // every package once in a write transaction before it is idle: 101 s on the embedded
        // default and 405 s on PostgreSQL at 100,000 packages (Stop 36 in bench/README.md).
        await storage.signingKeys.markBackfilled('', new Date().toISOString());
        await storage.database.afterBulkImport?.();
      }
    }
  } finally {
    for (const { storage } of opened) await storage.close();
    await restoreSync();
  }
}

/** Links `target` to `source`'s file, making its directory; false when they are on two file systems. */
async function linked(source, target) {
  try {
    await fs.promises.mkdir(path.dirname(target), { recursive: true });
    await fs.promises.link(source, target);
    return true;
  } catch (err) {
    if (err.code === 'EXDEV') return false;
    throw err;
  }
}

/**
 * On PostgreSQL, the seeding's sessions commit without waiting for the write-ahead log to reach
 * the disk (`synchronous_commit = off`: the same rows, as withoutSync does for files). pg takes
 * `options` from the URL over the driver's, so the search path the driver sets is given again.
 */
function withoutCommitWait(flags) {
  if (!flags.database?.startsWith('postgres')) return flags;
  const url = new URL(flags.database);
  const schema = url.searchParams.get('schema') ?? 'public';
  url.searchParams.set('options', `-c search_path=${schema},public -c synchronous_commit=off`);
  return { ...flags, database: url.toString() };
}

/**
 * Makes fdatasync a no-op in this process while seeding: each tarball's sync is what bounds a
 * publish on a slow disk (about 100 versions/s here), and seeding needs the bytes, not their
 * durability across a power cut (a failed seeding is run again). Written files are the same.
 */
async function withoutSync() {
  const original = fs.fdatasync;
  const probe = path.join(os.tmpdir(), `pkg-bench-probe-${process.pid}`);
  const handle = await open(probe, 'w');
  const proto = Object.getPrototypeOf(handle);
  const originalDatasync = proto.datasync;
  await handle.close();
  fs.rmSync(probe, { force: true });
  fs.fdatasync = (fd, callback) => process.nextTick(callback, null);
  proto.datasync = async () => {};
  syncBuiltinESMExports();
  return async () => {
    fs.fdatasync = original;
    proto.datasync = originalDatasync;
    syncBuiltinESMExports();
  };
}

/**
 * Publishes the first `sample` corpus packages through the HTTP API of a fresh registry at
 * `apiUrl` and compares their documents, full and abbreviated, with the seeded registry's at
 * `seededUrl`: equal but for what differs between two publishes by nature (times, `_rev`, the
 * signature, each made with its own registry's key), and every signature valid for its
 * registry's public key. Returns the number of documents compared; throws on a difference.
 */
export async function verifySeed({ apiUrl, apiToken, seededUrl, sample, versions, tarballSize }) {
  const payload = fixedPayload(tarballSize);
  const specs = [...corpusPackages(sample)];
  for (const spec of specs)
    for (let v = 0; v < versions; v++) await publish(apiUrl, apiToken, corpusBody(spec, v, payload), spec.name);
  const keys = async (url) => (await requestJson(`${url}/-/npm/v1/keys`)).json.keys;
  const apiKeys = await keys(apiUrl);
  const seededKeys = await keys(seededUrl);
  let compared = 0;
  for (const spec of specs) {
    for (const accept of ['application/json', 'application/vnd.npm.install-v1+json']) {
      const get = async (url) => {
        const res = await requestJson(`${url}/${spec.name}`, { headers: { accept } });
        if (res.status !== 200) throw new Error(`GET ${url}/${spec.name}: ${res.status}`);
        return res.json;
      };
      const fromApi = await get(apiUrl);
      const seeded = await get(seededUrl);
      for (const [doc, docKeys] of [
        [fromApi, apiKeys],
        [seeded, seededKeys],
      ]) {
        for (const record of Object.values(doc.versions)) checkSignature(spec.name, record, docKeys);
      }
      const a = JSON.stringify(comparable(fromApi, apiUrl));
      const b = JSON.stringify(comparable(seeded, seededUrl));
      if (a !== b) throw new Error(`the seeded document of ${spec.name} (${accept}) differs from the published one:\n${b}\n${a}`);
      compared++;
    }
  }
  return compared;
}

function checkSignature(name, record, keys) {
  const [signature] = record.dist.signatures ?? [];
  const key = keys.find((k) => k.keyid === signature?.keyid);
  const ok =
    key &&
    verify(
      'sha256',
      Buffer.from(`${name}@${record.version}:${record.dist.integrity}`),
      createPublicKey({ key: Buffer.from(key.key, 'base64'), format: 'der', type: 'spki' }),
      Buffer.from(signature.sig, 'base64'),
    );
  if (!ok) throw new Error(`${name}@${record.version}: dist.signatures is missing or does not verify`);
}

/** The document without what two publishes of the same bytes make differently; URLs relative. */
function comparable(doc, baseUrl) {
  return JSON.parse(JSON.stringify(doc), (key, value) => {
    if (key === '_rev' || key === 'time' || key === 'modified') return undefined;
    if (key === 'signatures') return value.length;
    if (typeof value === 'string' && value.startsWith(baseUrl)) return value.slice(baseUrl.length);
    return value;
  });
}

/** sha256 of the seeding parameters: a reused data directory must hold what was asked for. */
export function seedFingerprint(parameters) {
  return createHash('sha256').update(JSON.stringify(parameters)).digest('hex').slice(0, 16);
}
