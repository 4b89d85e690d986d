/** Reading a (gzipped) tarball held in memory into its entries, without touching the disk. */
import { Parser, type ReadEntry } from 'tar';

export interface TarEntry {
  path: string;
  type: ReadEntry['type'];
  data: Buffer;
}

export function readTarEntries(tarball: Buffer): Promise<TarEntry[]> {
  return new Promise((resolve, reject) => {
    const entries: TarEntry[] = [];
    const parser = new Parser({ strict: true });
    parser.on('entry', (entry: ReadEntry) => {
      const chunks: Buffer[] = [];
      entry.on('data', (chunk: Buffer) => chunks.push(chunk));
      entry.on('end', () => entries.push({ path: entry.path, type: entry.type, data: Buffer.concat(chunks) }));
    });
    parser.on('error', reject);
    parser.on('end', () => resolve(entries));
    parser.end(tarball);
  });
}
