import { open, type FileHandle } from 'node:fs/promises';

/** An open file shared by concurrent readers; closed once evicted and no reader holds it. */
export interface OpenFile {
  handle: FileHandle;
  size: number;
  modified: Date;
  readers: number;
  evicted: boolean;
}

/**
 * Recently read files kept open (least recently used first out), so that serving an immutable
 * blob again costs one positional read instead of open, stat, reads and close. Each entry is
 * reference-counted: eviction never closes a file a read is still using.
 */
export class OpenFileCache {
  readonly #max: number;
  readonly #files = new Map<string, Promise<OpenFile | undefined>>();

  constructor(max: number) {
    this.#max = max;
  }

  /** The open file at `path` with one more reader (release it), or undefined when absent. */
  async acquire(path: string): Promise<OpenFile | undefined> {
    for (;;) {
      let pending = this.#files.get(path);
      if (pending) {
        this.#files.delete(path);
        this.#files.set(path, pending);
      } else {
        const opening = openFile(path);
        pending = opening;
        this.#files.set(path, opening);
        opening.catch(() => {
          if (this.#files.get(path) === opening) this.#files.delete(path);
        });
        this.#trim();
      }
      const file = await pending;
      if (!file) {
        // Absent files are not remembered: a publish may create one at any time.
        if (this.#files.get(path) === pending) this.#files.delete(path);
        return undefined;
      }
      // Evicted while this reader waited: open it afresh.
      if (file.evicted) continue;
      file.readers++;
      return file;
    }
  }

  release(file: OpenFile): void {
    file.readers--;
    if (file.evicted && file.readers === 0) void file.handle.close().catch(() => undefined);
  }

  /** Forgets `path` (its blob is being deleted or replaced). */
  evict(path: string): void {
    const pending = this.#files.get(path);
    if (!pending) return;
    this.#files.delete(path);
    void pending.then((file) => {
      if (!file || file.evicted) return;
      file.evicted = true;
      if (file.readers === 0) void file.handle.close().catch(() => undefined);
    });
  }

  async close(): Promise<void> {
    const files = [...this.#files.values()];
    this.#files.clear();
    for (const pending of files) {
      const file = await pending.catch(() => undefined);
      if (!file || file.evicted) continue;
      file.evicted = true;
      if (file.readers === 0) await file.handle.close().catch(() => undefined);
    }
  }

  #trim(): void {
    while (this.#files.size > this.#max) this.evict(this.#files.keys().next().value!);
  }
}

async function openFile(path: string): Promise<OpenFile | undefined> {
  let handle: FileHandle;
  try {
    handle = await open(path, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT' || (err as NodeJS.ErrnoException).code === 'EISDIR') return undefined;
    throw err;
  }
  try {
    const info = await handle.stat();
    if (!info.isFile()) {
      await handle.close();
      return undefined;
    }
    return { handle, size: info.size, modified: info.mtime, readers: 0, evicted: false };
  } catch (err) {
    await handle.close().catch(() => undefined);
    throw err;
  }
}
