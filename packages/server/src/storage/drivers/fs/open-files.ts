import { open, type FileHandle } from 'node:fs/promises';

/** An open file shared by concurrent readers; closed once evicted and no reader holds it. */
export interface OpenFile {
  handle: FileHandle;
  size: number;
  modified: Date;
  readers: number;
  evicted: boolean;
}

interface Slot {
  pending: Promise<OpenFile | undefined>;
  referenced: boolean;
}

/**
 * Recently read files kept open (approximately least recently used first out), so that serving an immutable
 * blob again costs one positional read instead of open, stat, reads and close. Each entry is
 * reference-counted: eviction never closes a file a read is still using.
 */
export class OpenFileCache {
  readonly #max: number;
  readonly #files = new Map<string, Slot>();

  constructor(max: number) {
    this.#max = max;
  }

  /** The open file at `path` with one more reader (release it), or undefined when absent. */
  async acquire(path: string): Promise<OpenFile | undefined> {
    for (;;) {
      let slot = this.#files.get(path);
      if (slot) slot.referenced = true;
      else {
        const opened: Slot = { pending: openFile(path), referenced: false };
        slot = opened;
        this.#files.set(path, opened);
        opened.pending.catch(() => {
          if (this.#files.get(path) === opened) this.#files.delete(path);
        });
        this.#trim();
      }
      const file = await slot.pending;
      if (!file) {
        // Absent files are not remembered: a publish may create one at any time.
        if (this.#files.get(path) === slot) this.#files.delete(path);
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
    const slot = this.#files.get(path);
    if (!slot) return;
    this.#files.delete(path);
    void slot.pending.then((file) => {
      if (!file || file.evicted) return;
      file.evicted = true;
      if (file.readers === 0) void file.handle.close().catch(() => undefined);
    });
  }

  async close(): Promise<void> {
    const slots = [...this.#files.values()];
    this.#files.clear();
    for (const slot of slots) {
      const file = await slot.pending.catch(() => undefined);
      if (!file || file.evicted) continue;
      file.evicted = true;
      if (file.readers === 0) await file.handle.close().catch(() => undefined);
    }
  }

  /** Second chance: a file read since the last pass moves to the back once (see BudgetLru). */
  #trim(): void {
    for (const [path, slot] of this.#files) {
      if (this.#files.size <= this.#max) break;
      if (slot.referenced) {
        slot.referenced = false;
        this.#files.delete(path);
        this.#files.set(path, slot);
        continue;
      }
      this.evict(path);
    }
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
