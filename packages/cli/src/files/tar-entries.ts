/**
 * Reading a (gzipped) tarball as a stream of entries, from a file or from memory: each entry's
 * data is handed to `onEntry` as a stream, so a package of any size is never held whole.
 */
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Parser, type ReadEntry } from 'tar';
import type { FileSystem } from '../deps.js';

/** A tarball: the path of a file (read as a stream) or bytes already in memory. */
export type TarballSource = string | Buffer;

export type TarEntryType = ReadEntry['type'];

/**
 * Calls `onEntry` for every entry in order, waiting for it before the next one is read; an
 * entry whose data `onEntry` does not read is skipped.
 */
export async function forEachTarEntry(
  fs: FileSystem,
  source: TarballSource,
  onEntry: (entry: { path: string; type: TarEntryType; data: AsyncIterable<Buffer> }) => Promise<void>,
): Promise<void> {
  const handle = typeof source === 'string' ? await fs.open(source, 'r') : undefined;
  try {
    const input = handle ? handle.createReadStream({ autoClose: false }) : Readable.from([source as Buffer]);
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
    await pipeline(input, parser);
    await chain;
    // What the extraction callbacks caught: errors of the parser, the filesystem or our checks.
    if (failure !== undefined) throw failure as Error;
  } finally {
    await handle?.close();
  }
}
