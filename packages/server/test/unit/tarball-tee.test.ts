import { randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { TarballTee } from '../../src/services/uplinks/tarball-tee.js';

async function readAll(stream: Readable): Promise<{ bytes: Buffer; error: Error | undefined }> {
  const chunks: Buffer[] = [];
  try {
    for await (const chunk of stream) chunks.push(chunk as Buffer);
    return { bytes: Buffer.concat(chunks), error: undefined };
  } catch (err) {
    return { bytes: Buffer.concat(chunks), error: err as Error };
  }
}

describe('TarballTee', () => {
  it('sends every byte to every client, the last only at the end, and hands back a kept tarball', async () => {
    const tee = new TarballTee(1024 * 1024, 5000);
    const parts = [randomBytes(1000), randomBytes(2000), randomBytes(10)];
    const early = tee.join()!;
    await tee.push(parts[0]!);
    const late = tee.join()!;
    await tee.push(parts[1]!);
    await tee.push(parts[2]!);
    // Nothing ended yet: each client has all but the last byte.
    expect(early.readableLength).toBe(3009);
    const whole = tee.end();
    const expected = Buffer.concat(parts);
    expect(whole?.equals(expected)).toBe(true);
    for (const client of [early, late]) expect((await readAll(client)).bytes.equals(expected)).toBe(true);
    expect(tee.join()).toBeUndefined();
  });

  it('cuts every client off short of the end when the download fails, and keeps nothing', async () => {
    const tee = new TarballTee(1024 * 1024, 5000);
    const client = tee.join()!;
    const chunk = randomBytes(500);
    await tee.push(chunk);
    tee.fail(new Error('integrity'));
    const { bytes, error } = await readAll(client);
    expect(error?.message).toBe('integrity');
    expect(bytes.length).toBeLessThan(chunk.length);
    expect(tee.end()).toBeUndefined();
  });

  it('lets no one join once what went out passed what it keeps; a client in before the first byte gets all', async () => {
    const tee = new TarballTee(100, 5000);
    const first = tee.join()!;
    await tee.push(randomBytes(500));
    expect(tee.join()).toBeUndefined();
    await tee.push(randomBytes(500));
    expect(tee.end()).toBeUndefined();
    expect((await readAll(first)).bytes.length).toBe(1000);
  });

  it('cuts off a client that does not read, and goes on without it', async () => {
    const tee = new TarballTee(0, 50);
    const stuck = tee.join()!;
    const reading = tee.join()!;
    const received = readAll(reading);
    // More than a client's stream holds unread: the push waits for the stuck one, then drops it.
    for (let i = 0; i < 20; i++) await tee.push(randomBytes(128 * 1024));
    expect(stuck.destroyed).toBe(true);
    tee.end();
    expect((await received).bytes.length).toBe(20 * 128 * 1024);
  });
});
