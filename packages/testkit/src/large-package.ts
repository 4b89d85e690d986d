import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import { tarHeader, tarPadding } from './tarballs.js';
import type { UntypedJson } from './untyped-json.js';

/** A tarball written to a file, with what a publish body says of it. */
export interface TarballFile {
  path: string;
  size: number;
  /** `sha512-<base64>` */
  integrity: string;
  /** sha1 hex */
  shasum: string;
}

const MiB = 1024 * 1024;

/**
 * Writes a package tarball with `payloadBytes` of incompressible data (`package/payload.bin`)
 * to `path`, streaming: a game-sized package without holding it in memory. The data is one
 * random MiB over and over, which gzip (a 32 KiB window) cannot shrink either.
 */
export async function writeLargeTarball(
  path: string,
  packageJson: Record<string, unknown>,
  payloadBytes: number,
): Promise<TarballFile> {
  const block = randomBytes(MiB);
  const manifest = Buffer.from(JSON.stringify(packageJson, null, 2));
  async function* tar(): AsyncIterable<Buffer> {
    yield Buffer.concat([tarHeader('package/package.json', manifest.length), manifest, tarPadding(manifest.length)]);
    yield tarHeader('package/payload.bin', payloadBytes);
    for (let left = payloadBytes; left > 0; left -= MiB) yield left >= MiB ? block : block.subarray(0, left);
    yield Buffer.concat([tarPadding(payloadBytes), Buffer.alloc(1024)]);
  }
  const sha512 = createHash('sha512');
  const sha1 = createHash('sha1');
  let size = 0;
  const measure = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      sha512.update(chunk);
      sha1.update(chunk);
      size += chunk.length;
      done(null, chunk);
    },
  });
  // Level 0 (stored blocks): what any level makes of incompressible data, without the effort.
  await pipeline(Readable.from(tar()), createGzip({ level: 0 }), measure, createWriteStream(path));
  return { path, size, integrity: `sha512-${sha512.digest('base64')}`, shasum: sha1.digest('hex') };
}

/**
 * Publishes a tarball file the way npm does (one JSON document, the tarball base64 inside),
 * sending the body as a stream: the test process never holds it whole either.
 */
export async function publishTarballFile(
  registryUrl: string,
  token: string,
  name: string,
  version: string,
  tarball: TarballFile,
): Promise<{ status: number; body: UntypedJson }> {
  const file = `${name}-${version}.tgz`;
  const marker = '@@DATA@@';
  const document = {
    _id: name,
    name,
    'dist-tags': { latest: version },
    versions: {
      [version]: {
        name,
        version,
        _id: `${name}@${version}`,
        dist: { integrity: tarball.integrity, shasum: tarball.shasum, tarball: `${registryUrl}/${name}/-/${file}` },
      },
    },
    _attachments: { [file]: { content_type: 'application/octet-stream', data: marker, length: tarball.size } },
  };
  const [prefix, suffix] = JSON.stringify(document).split(marker) as [string, string];
  const base64Length = Math.ceil(tarball.size / 3) * 4;
  async function* body(): AsyncIterable<Buffer> {
    yield Buffer.from(prefix);
    // Pieces of a multiple of 3 bytes encode to base64 that can simply be joined.
    for await (const chunk of createReadStream(tarball.path, { highWaterMark: 3 * 256 * 1024 })) {
      yield Buffer.from((chunk as Buffer).toString('base64'));
    }
    yield Buffer.from(suffix);
  }
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${registryUrl}/${encodeURIComponent(name)}`, {
      method: 'PUT',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(prefix) + base64Length + Buffer.byteLength(suffix)),
      },
    });
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      res.on('end', () => {
        let parsed: unknown = text;
        try {
          parsed = JSON.parse(text);
        } catch {
          // not JSON: keep the text
        }
        resolve({ status: res.statusCode ?? 0, body: parsed });
      });
    });
    req.on('error', reject);
    pipeline(Readable.from(body()), req).catch(reject);
  });
}

/**
 * Downloads a URL as a stream, hashing it (unless `hash` is false: a benchmark's load generator
 * only counts, so that its own hashing does not bound what it measures): nothing is kept.
 */
export async function downloadDigest(
  url: string,
  headers: Record<string, string> = {},
  { hash = true }: { hash?: boolean } = {},
): Promise<{ status: number; length: number; integrity: string; headers: Record<string, string | string[] | undefined> }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { headers }, (res) => {
      const sha512 = hash ? createHash('sha512') : undefined;
      let length = 0;
      res.on('data', (chunk: Buffer) => {
        sha512?.update(chunk);
        length += chunk.length;
      });
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          length,
          integrity: sha512 ? `sha512-${sha512.digest('base64')}` : '',
          headers: res.headers,
        }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}
