import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publishBody } from '../../src/publish/publish-body.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'pkg-publish-body-'));
});
afterAll(async () => rm(dir, { recursive: true, force: true }));

async function collect(chunks: AsyncIterable<Uint8Array>): Promise<{ text: string; count: number }> {
  const parts: Buffer[] = [];
  for await (const chunk of chunks) parts.push(Buffer.from(chunk));
  return { text: Buffer.concat(parts).toString('utf8'), count: parts.length };
}

describe('publishBody', () => {
  // Sizes around the 3-byte groups of base64 and the read chunks (192 KiB), none a multiple of 3.
  for (const size of [0, 1, 2, 3 * 64 * 1024 + 1, 1_000_001]) {
    it(`streams a ${size}-byte tarball as base64, of the length announced, and opens anew for a retry`, async () => {
      const tarball = randomBytes(size);
      const file = path.join(dir, `t-${size}.tgz`);
      await writeFile(file, tarball);
      let read = 0;
      const body = publishBody(
        {
          manifest: { name: 'com.vendor.tool', version: '1.0.0', displayName: 'Tool', description: 'd' },
          tag: 'beta',
          tarball: { file, size, integrity: 'sha512-x', shasum: 'y' },
          tarballUrl: 'http://127.0.0.1:4873/com.vendor.tool/-/com.vendor.tool-1.0.0.tgz',
          readme: '# Tool\n',
        },
        (bytes) => (read += bytes),
      );
      for (let attempt = 0; attempt < 2; attempt++) {
        const { text } = await collect(body.open());
        expect(Buffer.byteLength(text)).toBe(body.length);
        const parsed = JSON.parse(text);
        expect(parsed['dist-tags']).toEqual({ beta: '1.0.0' });
        expect(parsed.versions['1.0.0']).toMatchObject({
          name: 'com.vendor.tool',
          displayName: 'Tool',
          readme: '# Tool\n',
          dist: { integrity: 'sha512-x', shasum: 'y' },
        });
        const attachment = parsed._attachments['com.vendor.tool-1.0.0.tgz'];
        expect(attachment.length).toBe(size);
        expect(Buffer.compare(Buffer.from(attachment.data, 'base64'), tarball)).toBe(0);
      }
      expect(read).toBe(2 * size);
      expect(body.contentType).toBe('application/json');
    });
  }
});
