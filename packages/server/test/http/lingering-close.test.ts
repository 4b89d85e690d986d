import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loginUser, startRegistry, type TestRegistry } from '@pkg/testkit';

/**
 * A publish refused before its body was read (here: declared larger than the limit) is answered
 * at once; the client is often still uploading. The server keeps reading and dropping the rest
 * while it keeps coming, so a client on a slow link finishes its upload and reads the refusal
 * instead of a reset, and closes the connection once the client pauses.
 */
const MAX_TARBALL = 64 * 1024;
let registry: TestRegistry;
let token: string;

beforeAll(async () => {
  registry = await startRegistry({ settings: { maxTarballSize: MAX_TARBALL } });
  token = await loginUser(registry.url, 'slow-uploader');
});
afterAll(async () => {
  await registry.close();
});

/** A raw PUT of a publish declared as `declared` bytes, of which nothing is sent yet. */
function openPublish(declared: number): Promise<{ socket: net.Socket; received: () => string; errors: Error[] }> {
  const { hostname, port } = new URL(registry.url);
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: hostname, port: Number(port) }, () => {
      socket.write(
        `PUT /com.example.slow HTTP/1.1\r\nHost: ${hostname}:${port}\r\nContent-Type: application/json\r\n` +
          `Authorization: Bearer ${token}\r\nContent-Length: ${declared}\r\nConnection: keep-alive\r\n\r\n`,
      );
      resolve({ socket, received: () => text, errors });
    });
    let text = '';
    const errors: Error[] = [];
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (text += chunk));
    socket.on('error', (err) => errors.push(err));
    socket.once('error', reject);
  });
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('the rest of a refused publish body', () => {
  it('is read while it keeps coming: a slow upload ends without a reset and the 413 is read', async () => {
    const chunk = Buffer.alloc(16 * 1024, 'x');
    const chunks = 12;
    const { socket, received, errors } = await openPublish(8 * 1024 * 1024);
    socket.write(chunk);
    // Longer in all than a fixed one-second linger after the answer, with pauses well below the
    // idle bound between the pieces.
    for (let i = 1; i < chunks; i++) {
      await pause(250);
      await new Promise<void>((resolve, reject) => socket.write(chunk, (err) => (err ? reject(err) : resolve())));
    }
    expect(errors).toEqual([]);
    expect(socket.destroyed).toBe(false);
    expect(received()).toMatch(/^HTTP\/1\.1 413 /);
    expect(received()).toContain('PAYLOAD_TOO_LARGE');
    socket.destroy();
  });

  it('is no longer read once the client pauses: the server closes the connection', async () => {
    const { socket, received } = await openPublish(8 * 1024 * 1024);
    socket.write(Buffer.alloc(16 * 1024, 'x'));
    await new Promise<void>((resolve) => socket.once('close', () => resolve()));
    expect(received()).toMatch(/^HTTP\/1\.1 413 /);
  });
});
