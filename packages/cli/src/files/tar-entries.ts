/**
 * Reading a (gzipped) tarball as a stream of entries from its file: each entry's data is handed
 * to `onEntry` as a stream, so a package of any size is never held whole.
 */
import type { Hash } from 'node:crypto';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Parser, type ReadEntry } from 'tar';
import type { FileSystem } from '../deps.js';

/**
 * A tarball, as the path of its file (read as a stream): the verified file in the cache. There
 * is no way to pass bytes, so no caller can hold a package whole in memory to extract it.
 */
export type TarballFile = string;

export type TarEntryType = ReadEntry['type'];

/**
 * Calls `onEntry` for every entry in order, waiting for it before the next one is read; an
 * entry whose data `onEntry` does not read is skipped.
 */
export async function forEachTarEntry(
  fs: FileSystem,
  file: TarballFile,
  onEntry: (entry: { path: string; type: TarEntryType; data: AsyncIterable<Buffer> }) => Promise<void>,
  /** Fed every byte of the file as it is read: its digest without reading it twice. */
  fileHash?: Hash,
): Promise<void> {
  const handle = await fs.open(file, 'r');
  try {
    const input = handle.createReadStream({ autoClose: false });
    let chain = Promise.resolve();
    let failure: unknown;
    const parser = new Parser({ strict: true });
    parser.on('entry', (entry: ReadEntry) => {
      // The parser waits while an entry is not drained, so entries are handled one at a time.
      chain = chain.then(async () => {
        if (failure !== undefined) {
          entry.resume();
          return;
        }
        try {
          await onEntry({ path: entry.path, type: entry.type, data: entry });
        } catch (err) {
          failure = err;
        } finally {
          entry.resume();
        }
      });
    });
    if (fileHash) {
      const tap = new Transform({
        transform(chunk: Buffer, _encoding, done) {
          fileHash.update(chunk);
          done(null, chunk);
        },
      });
      await pipeline(input, tap, parser);
    } else {
      await pipeline(input, parser);
    }
    await chain;
    // What the extraction callbacks caught: errors of the parser, the filesystem or our checks.
    if (failure !== undefined) throw failure as Error;
  } finally {
    await handle.close();
  }
}
