import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { buildTarball, publishBody } from '@pkg/testkit';
import { Base64Decoder } from '../../src/services/base64-decoder.js';
import { receivePublishBody, type ReceiveOptions } from '../../src/services/publish-body-receiver.js';
import type { BlobUpload } from '../../src/storage/ports.js';
import type { UntypedJson } from '@pkg/testkit';

/** An upload that keeps what it is given, and whether it was committed or aborted. */
class MemoryUpload implements BlobUpload {
  chunks: Buffer[] = [];
  state: 'open' | 'committed' | 'aborted' = 'open';
  async write(chunk: Buffer) {
    this.chunks.push(Buffer.from(chunk));
  }
  async commit() {
    this.state = 'committed';
  }
  async abort() {
    this.state = 'aborted';
  }
  get bytes() {
    return Buffer.concat(this.chunks);
  }
}

function options(uploads: Map<string, MemoryUpload>, overrides: Partial<ReceiveOptions> = {}): ReceiveOptions {
  return {
    bodyLimit: 64 * 1024 * 1024,
    maxRestBytes: 1024 * 1024,
    limits: { maxTarballSize: 16 * 1024 * 1024, maxUnpackedSize: 160 * 1024 * 1024 },
    uploadFor: async (file) => {
      const upload = new MemoryUpload();
      uploads.set(file, upload);
      return upload;
    },
    ...overrides,
  };
}

/** The body in pieces of random sizes (1 byte to 4 KiB), as a socket may deliver it. */
async function* pieces(bytes: Buffer, seed: number): AsyncIterable<Buffer> {
  let state = seed;
  let at = 0;
  while (at < bytes.length) {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    const size = 1 + (state % 4096);
    yield bytes.subarray(at, at + size);
    at += size;
  }
}

describe('receivePublishBody', () => {
  it('streams the tarball out of the body in any split, and parses the rest as JSON.parse would', async () => {
    const { body, tarball, filename } = publishBody('com.acme.split', '1.0.0', {
      files: [{ path: 'Runtime/data.bin', content: randomBytes(40_000) }],
      readme: 'quotes " and \\ backslashes, é, and "data": "x"',
    });
    const text = Buffer.from(JSON.stringify(body));
    for (const seed of [1, 2, 3, 4, 5]) {
      const uploads = new Map<string, MemoryUpload>();
      const received = await receivePublishBody(pieces(text, seed), options(uploads));
      const expected = structuredClone(body) as UntypedJson;
      expected._attachments[filename].data = '';
      expect(received.document).toEqual(expected);
      expect(uploads.get(filename)!.bytes.equals(tarball)).toBe(true);
      const tarballInfo = received.tarballs.get(filename)!;
      expect(tarballInfo.length).toBe(tarball.length);
      expect(tarballInfo.validBase64).toBe(true);
      expect(tarballInfo.digests.sha512).toBe(body.versions['1.0.0']!.dist.integrity);
      expect(tarballInfo.facts).toMatchObject({ manifest: { name: 'com.acme.split', version: '1.0.0' }, fileCount: 2 });
    }
  });

  it('reads escaped slashes in the base64 and keys written with escapes', async () => {
    const tarball = buildTarball({ name: 'com.acme.esc', version: '1.0.0' }, [{ path: 'a.bin', content: randomBytes(3000) }]);
    const base64 = tarball.toString('base64');
    const text = `{"name":"com.acme.esc","_attachments":{"com.acme.esc-1.0.0.tgz":{"d\\u0061ta":"${base64.replace(/\//g, '\\/')}","length":${tarball.length}}}}`;
    const uploads = new Map<string, MemoryUpload>();
    const received = await receivePublishBody(pieces(Buffer.from(text), 9), options(uploads));
    expect(uploads.get('com.acme.esc-1.0.0.tgz')!.bytes.equals(tarball)).toBe(true);
    expect((received.document as UntypedJson)._attachments['com.acme.esc-1.0.0.tgz']).toEqual({
      data: '',
      length: tarball.length,
    });
  });

  it('keeps data of other attachments and other places in the document', async () => {
    const text = JSON.stringify({
      data: 'AAAA',
      versions: { '1.0.0': { _attachments: { 'x.tgz': { data: 'AAAA' } } } },
      _attachments: { 'a.sigstore': { data: '{"bundle": 1}' } },
    });
    const uploads = new Map<string, MemoryUpload>();
    const received = await receivePublishBody(pieces(Buffer.from(text), 3), options(uploads));
    expect(received.document).toEqual(JSON.parse(text));
    expect(uploads.size).toBe(0);
  });

  it.each([
    ['malformed JSON', '{"name": "x", "_attachments": {"x-1.0.0.tgz": {"data": "AAAA"', 'not valid JSON'],
    ['an empty body', '', 'empty'],
    ['a __proto__ key', '{"__proto__": {"x": 1}}', 'not valid JSON'],
    ['nesting deeper than 64', '['.repeat(70) + ']'.repeat(70), 'nested'],
  ])('refuses %s with 400 and aborts every upload', async (_label, text, fragment) => {
    const uploads = new Map<string, MemoryUpload>();
    const failure = receivePublishBody(pieces(Buffer.from(text), 7), options(uploads));
    await expect(failure).rejects.toMatchObject({ status: 400, details: expect.stringContaining(fragment) });
    for (const upload of uploads.values()) expect(upload.state).toBe('aborted');
  });

  it('refuses a body over its limit with 413 as soon as it is passed, without reading on', async () => {
    let yielded = 0;
    async function* endless(): AsyncIterable<Buffer> {
      yield Buffer.from('{"_attachments":{"com.acme.x-1.0.0.tgz":{"data":"');
      for (;;) {
        yielded++;
        yield Buffer.alloc(64 * 1024, 'A');
      }
    }
    const uploads = new Map<string, MemoryUpload>();
    await expect(receivePublishBody(endless(), options(uploads, { bodyLimit: 1024 * 1024 }))).rejects.toMatchObject({
      status: 413,
    });
    expect(yielded).toBe(16);
    expect(uploads.get('com.acme.x-1.0.0.tgz')!.state).toBe('aborted');
  });

  it('refuses a tarball over maxTarballSize with 413 while it streams', async () => {
    const text = `{"_attachments":{"com.acme.x-1.0.0.tgz":{"data":"${'A'.repeat(8192)}"}}}`;
    const uploads = new Map<string, MemoryUpload>();
    const limits = { maxTarballSize: 4096, maxUnpackedSize: 40960 };
    await expect(receivePublishBody(pieces(Buffer.from(text), 5), options(uploads, { limits }))).rejects.toMatchObject({
      status: 413,
      details: expect.stringContaining('tarball is larger'),
    });
    expect(uploads.get('com.acme.x-1.0.0.tgz')!.state).toBe('aborted');
  });

  it('refuses a document over maxRestBytes without its tarball with 413', async () => {
    const text = JSON.stringify({ readme: 'x'.repeat(4096) });
    await expect(
      receivePublishBody(pieces(Buffer.from(text), 5), options(new Map(), { maxRestBytes: 1024 })),
    ).rejects.toMatchObject({
      status: 413,
    });
  });

  it('records bad base64 and a broken tarball, and drops their uploads', async () => {
    const broken = Buffer.from('not a gzip tar at all');
    const text = JSON.stringify({
      _attachments: {
        'com.acme.a-1.0.0.tgz': { data: 'AAA!' },
        'com.acme.b-1.0.0.tgz': { data: broken.toString('base64') },
      },
    });
    const uploads = new Map<string, MemoryUpload>();
    const received = await receivePublishBody(pieces(Buffer.from(text), 11), options(uploads));
    expect(received.tarballs.get('com.acme.a-1.0.0.tgz')!.validBase64).toBe(false);
    expect(received.tarballs.get('com.acme.b-1.0.0.tgz')!.facts).toMatchObject({ code: 'VALIDATION_ERROR' });
    expect(uploads.get('com.acme.a-1.0.0.tgz')!.state).toBe('aborted');
    expect(uploads.get('com.acme.b-1.0.0.tgz')!.state).toBe('aborted');
  });
});

describe('Base64Decoder', () => {
  const decode = (parts: string[]) => {
    const decoder = new Base64Decoder();
    const out: Buffer[] = [];
    for (const part of parts) {
      const bytes = decoder.push(part);
      if (bytes) out.push(bytes);
    }
    const { bytes, valid } = decoder.end();
    if (bytes) out.push(bytes);
    return { valid, bytes: Buffer.concat(out), length: decoder.decodedLength };
  };

  it('decodes text split anywhere, padding included', () => {
    for (const size of [0, 1, 2, 3, 10, 100]) {
      const data = randomBytes(size);
      const text = data.toString('base64');
      for (let cut = 0; cut <= text.length; cut++) {
        const result = decode([text.slice(0, cut), text.slice(cut)]);
        expect(result.valid).toBe(true);
        expect(result.bytes.equals(data)).toBe(true);
        expect(result.length).toBe(size);
      }
    }
  });

  it.each([['AAA!'], ['AAA'], ['A==='], ['AA=A'], ['AA==AAAA'], ['AA\nA'], ['AAAA AAAA']])('refuses %j', (text) => {
    expect(decode([text]).valid).toBe(false);
    expect(decode(text.split('')).valid).toBe(false);
  });
});
