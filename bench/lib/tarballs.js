// Package tarballs and npm publish bodies for the benchmark, built by hand (no dependency):
// `package/package.json` plus a file of random bytes, so the tarball does not compress and its
// size on the wire is what was asked for.
import { createHash, randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';

const BLOCK = 512;

function header(path, size) {
  const block = Buffer.alloc(BLOCK);
  block.write(path, 0, 'utf8');
  block.write('0000644\0', 100);
  block.write('0000000\0', 108);
  block.write('0000000\0', 116);
  block.write(size.toString(8).padStart(11, '0') + '\0', 124);
  block.write('00000000000\0', 136);
  block.write('        ', 148);
  block.write('0', 156);
  block.write('ustar\0', 257);
  block.write('00', 263);
  let sum = 0;
  for (const byte of block) sum += byte;
  block.write(sum.toString(8).padStart(6, '0') + '\0 ', 148);
  return block;
}

function entry(path, data) {
  return [header(path, data.length), data, Buffer.alloc((BLOCK - (data.length % BLOCK)) % BLOCK)];
}

/**
 * The random-file entry and the end of the archive, gzipped once. A gzip file may hold several
 * members, and tar readers (npm's, ours) read them as one stream, so a tarball is a small
 * per-version member with package.json followed by this shared one: building a unique 20 KB
 * tarball then costs a few microseconds, and the load generator does not compete with the server.
 */
export function randomPayload(size) {
  const data = randomBytes(Math.max(0, size - 600));
  return gzipSync(Buffer.concat([...entry('package/payload.bin', data), Buffer.alloc(2 * BLOCK)]), { level: 1 });
}

/** A gzip tarball of `packageJson` and `payload` (from randomPayload). */
export function tarballWith(packageJson, payload) {
  const head = gzipSync(Buffer.concat(entry('package/package.json', Buffer.from(JSON.stringify(packageJson, null, 2)))), {
    level: 1,
  });
  return Buffer.concat([head, payload]);
}

/** The manifest fields of a version: about 1 KB of JSON per version record once published. */
export function manifestOf(spec, version) {
  return {
    name: spec.name,
    version,
    description: spec.description,
    ...(spec.displayName ? { displayName: spec.displayName } : {}),
    keywords: spec.keywords,
    author: spec.author,
    license: 'MIT',
    unity: spec.unity ?? '2021.3',
    ...(spec.repository ? { repository: { type: 'git', url: spec.repository } } : {}),
    dependencies: spec.dependencies ?? {},
    ...(spec.extra ?? {}),
  };
}

/** The JSON body `npm publish` sends for one version (as a string, ready to send). */
export function publishBody(manifest, tarball, readme) {
  const filename = `${manifest.name}-${manifest.version}.tgz`;
  return JSON.stringify({
    _id: manifest.name,
    name: manifest.name,
    description: manifest.description,
    'dist-tags': { latest: manifest.version },
    versions: {
      [manifest.version]: {
        ...manifest,
        _id: `${manifest.name}@${manifest.version}`,
        readme,
        dist: {
          integrity: `sha512-${createHash('sha512').update(tarball).digest('base64')}`,
          shasum: createHash('sha1').update(tarball).digest('hex'),
          tarball: `http://127.0.0.1/${manifest.name}/-/${filename}`,
        },
      },
    },
    readme,
    _attachments: {
      [filename]: { content_type: 'application/octet-stream', data: tarball.toString('base64'), length: tarball.length },
    },
  });
}
