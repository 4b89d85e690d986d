import type { Hash } from 'node:crypto';
import type { FileSystem } from '../deps.js';

const READ_CHUNK = 1024 * 1024;

/**
 * Feeds a file's bytes to `hash`, read in pieces: a file of any size (a cached tarball, an
 * installed Unreal asset of gigabytes) is never held whole.
 */
export async function hashFile(fs: FileSystem, file: string, hash: Hash): Promise<void> {
  const handle = await fs.open(file, 'r');
  try {
    const buffer = Buffer.allocUnsafe(READ_CHUNK);
    for (;;) {
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, null);
      if (bytesRead === 0) break;
      hash.update(buffer.subarray(0, bytesRead));
    }
  } finally {
    await handle.close();
  }
}
