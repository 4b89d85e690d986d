import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';

export interface TarEntry {
  path: string;
  content: string | Buffer;
}

/**
 * Builds a package tarball the way `npm pack` lays it out: every file under `package/`,
 * gzip-compressed ustar. Written by hand so tests can also build malformed ones.
 */
export function buildTarball(packageJson: Record<string, unknown>, files: TarEntry[] = []): Buffer {
  const entries: TarEntry[] = [{ path: 'package/package.json', content: JSON.stringify(packageJson, null, 2) }];
  for (const file of files)
    entries.push({
      path:
        file.path.startsWith('package/') || file.path.startsWith('/') || file.path.startsWith('..')
          ? file.path
          : `package/${file.path}`,
      content: file.content,
    });
  return gzipSync(rawTar(entries));
}

/** An uncompressed ustar archive of the given entries, paths taken literally. */
export function rawTar(entries: TarEntry[]): Buffer {
  const blocks: Buffer[] = [];
  for (const entry of entries) {
    const data = typeof entry.content === 'string' ? Buffer.from(entry.content) : entry.content;
    blocks.push(tarHeader(entry.path, data.length), data, tarPadding(data.length));
  }
  blocks.push(Buffer.alloc(1024));
  return Buffer.concat(blocks);
}

/** The ustar header block of a regular file of `size` bytes at `path` (taken literally). */
export function tarHeader(path: string, size: number): Buffer {
  const header = Buffer.alloc(512);
  header.write(path.slice(0, 100), 0, 'utf8');
  header.write('0000644\0', 100);
  header.write('0000000\0', 108);
  header.write('0000000\0', 116);
  header.write(size.toString(8).padStart(11, '0') + '\0', 124);
  header.write('00000000000\0', 136);
  header.write('        ', 148);
  header.write('0', 156);
  header.write('ustar\0', 257);
  header.write('00', 263);
  let sum = 0;
  for (const byte of header) sum += byte;
  header.write(sum.toString(8).padStart(6, '0') + '\0 ', 148);
  return header;
}

/** Zeros that fill a file of `size` bytes up to the next 512-byte block. */
export function tarPadding(size: number): Buffer {
  return Buffer.alloc((512 - (size % 512)) % 512);
}

export function sha512Integrity(data: Buffer): string {
  return `sha512-${createHash('sha512').update(data).digest('base64')}`;
}

export function sha1Hex(data: Buffer): string {
  return createHash('sha1').update(data).digest('hex');
}
