import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { buildTarball, rawTar } from '@pkg/testkit';
import { ProtocolError } from '@pkg/protocol';
import { inspectTarball } from '../../src/services/tarball-validation.js';

const limits = { maxUnpackedSize: 10 * 1024 * 1024 };

async function rejection(bytes: Buffer, max = limits.maxUnpackedSize): Promise<ProtocolError> {
  const err = await inspectTarball(bytes, { maxUnpackedSize: max }).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ProtocolError);
  expect((err as ProtocolError).code).toBe('VALIDATION_ERROR');
  return err as ProtocolError;
}

describe('inspectTarball', () => {
  it('reads package.json, counts files and sums their sizes', async () => {
    const manifest = { name: 'com.acme.tool', version: '1.0.0' };
    const bytes = buildTarball(manifest, [
      { path: 'Runtime/a.cs', content: 'class A {}' },
      { path: 'README.md', content: '# hi' },
    ]);
    const facts = await inspectTarball(bytes, limits);
    expect(facts.manifest).toEqual(manifest);
    expect(facts.fileCount).toBe(3);
    expect(facts.unpackedSize).toBe(JSON.stringify(manifest, null, 2).length + 'class A {}'.length + 4);
  });

  it('refuses bytes that are not gzip', async () => {
    expect((await rejection(Buffer.from('not a tarball'))).details).toMatch(/gzip/);
  });

  it('refuses gzip that is not a tar archive', async () => {
    expect((await rejection(gzipSync(Buffer.from('hello world, no tar here'.repeat(40))))).details).toMatch(/tar/);
  });

  it('refuses a truncated archive', async () => {
    const bytes = buildTarball({ name: 'com.acme.tool', version: '1.0.0' }, [
      { path: 'big.bin', content: Buffer.alloc(50_000, 7) },
    ]);
    await rejection(bytes.subarray(0, Math.floor(bytes.length / 2)));
  });

  it.each([['/etc/passwd'], ['package/../../evil.js'], ['../outside.txt']])('refuses the entry path %s', async (bad) => {
    const bytes = gzipSync(
      rawTar([
        { path: 'package/package.json', content: '{"name":"com.acme.tool","version":"1.0.0"}' },
        { path: bad, content: 'x' },
      ]),
    );
    expect((await rejection(bytes)).details).toMatch(/absolute|\.\./);
  });

  it('refuses an archive without package/package.json, or with one that is not a JSON object', async () => {
    expect((await rejection(gzipSync(rawTar([{ path: 'other/package.json', content: '{}' }])))).details).toMatch(
      /no package\/package.json/,
    );
    expect((await rejection(gzipSync(rawTar([{ path: 'package/package.json', content: '{oops' }])))).details).toMatch(
      /not valid JSON/,
    );
    expect((await rejection(gzipSync(rawTar([{ path: 'package/package.json', content: '[1]' }])))).details).toMatch(
      /not a JSON object/,
    );
  });

  it('stops reading once the files add up to more than the unpacked limit', async () => {
    const bytes = buildTarball({ name: 'com.acme.tool', version: '1.0.0' }, [
      { path: 'zeros.bin', content: Buffer.alloc(200_000) },
    ]);
    expect((await rejection(bytes, 100_000)).details).toMatch(/unpacks to more than/);
  });
});
