import { watch, type FSWatcher } from 'node:fs';
import path from 'node:path';

/**
 * Whether another process may have written a database file since the last look, from the file
 * system's change events on its directory (inotify on Linux): asking SQLite (`PRAGMA
 * data_version`) on every request costs more than the rest of a cached whoami. Any event on the
 * database, its WAL or its shared-memory file counts. Where the directory cannot be watched, every
 * look says "maybe changed", so callers ask SQLite each time, as they would without this.
 */
export class FileChangeWatch {
  #watcher: FSWatcher | undefined;
  readonly #inMemory: boolean;
  #changed = true;

  constructor(file: string) {
    this.#inMemory = file === ':memory:';
    if (this.#inMemory) return;
    const base = path.basename(file);
    try {
      this.#watcher = watch(path.dirname(file), { persistent: false }, (_event, name) => {
        if (name === null || name.startsWith(base)) this.#changed = true;
      });
      // A watch that fails later falls back to asking every time.
      this.#watcher.on('error', () => this.close());
    } catch {
      this.#watcher = undefined;
    }
  }

  /** True when the file may have changed since the previous call (always, without a watch). */
  takeChanged(): boolean {
    if (this.#watcher === undefined && !this.#inMemory) return true;
    const changed = this.#changed;
    this.#changed = false;
    return changed;
  }

  close(): void {
    this.#watcher?.close();
    this.#watcher = undefined;
  }
}
