/**
 * The body of an npm publish (`PUT /<name>`): the package document with one version, its dist-tag
 * and the tarball as a base64 attachment. The tarball is never held whole: the body is the JSON
 * text up to the attachment's `data`, the base64 of the tarball as it is read from disk, and the
 * closing text, with its length known in advance for `content-length`.
 */
import { createReadStream } from 'node:fs';
import type { StreamedBody } from '../http/registry-client.js';

export interface PublishVersion {
  /** package.json as packed. */
  manifest: Record<string, unknown> & { name: string; version: string };
  tag: string;
  /** The tarball file and what was measured of it. */
  tarball: { file: string; size: number; integrity: string; shasum: string };
  /** Where the registry will serve it (registries rewrite it; npm sends its own guess too). */
  tarballUrl: string;
  readme?: string;
}

/** Base64 length of `n` bytes. */
function base64Length(n: number): number {
  return Math.ceil(n / 3) * 4;
}

export function publishBody(input: PublishVersion, onBytes?: (bytes: number) => void): StreamedBody {
  const { manifest, tag, tarball } = input;
  const { name, version } = manifest;
  const filename = `${name}-${version}.tgz`;
  const readme = input.readme ?? '';
  const document = {
    _id: name,
    name,
    ...(typeof manifest.description === 'string' ? { description: manifest.description } : {}),
    'dist-tags': { [tag]: version },
    versions: {
      [version]: {
        ...manifest,
        _id: `${name}@${version}`,
        readme,
        dist: { integrity: tarball.integrity, shasum: tarball.shasum, tarball: input.tarballUrl },
      },
    },
    readme,
  };
  const opening = JSON.stringify(document);
  const head = Buffer.from(
    `${opening.slice(0, -1)},"_attachments":{${JSON.stringify(filename)}:{"content_type":"application/octet-stream","length":${tarball.size},"data":"`,
  );
  const tail = Buffer.from('"}}}');
  return {
    length: head.length + base64Length(tarball.size) + tail.length,
    contentType: 'application/json',
    async *open() {
      yield head;
      // Base64 works on 3-byte groups: a chunk's last 1 or 2 bytes wait for the next chunk.
      let carry = Buffer.alloc(0);
      for await (const chunk of createReadStream(tarball.file, { highWaterMark: 3 * 64 * 1024 })) {
        const bytes = Buffer.concat([carry, chunk as Buffer]);
        const whole = bytes.length - (bytes.length % 3);
        carry = bytes.subarray(whole);
        if (whole > 0) yield Buffer.from(bytes.subarray(0, whole).toString('base64'));
        onBytes?.((chunk as Buffer).length);
      }
      if (carry.length > 0) yield Buffer.from(carry.toString('base64'));
      yield tail;
    },
  };
}
