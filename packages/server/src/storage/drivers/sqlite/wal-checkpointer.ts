import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/**
 * How often the worker copies the write-ahead log into the database file. Each look at a log
 * with nothing new is a read of SQLite's shared-memory index: a few microseconds.
 */
export const CHECKPOINT_INTERVAL_MS = 200;

/**
 * Pages of log (about 120 MB of 4 KiB pages) past which the writing connection checkpoints by
 * itself, as SQLite does by default at 1,000: only when the worker has fallen that far behind (a
 * long burst of writes, which lets no checkpoint finish, or a worker gone), so the log stays
 * bounded whatever happens. Lower, a burst reaches it often: at 3,000 pages the download-score
 * refresh of a large registry checkpointed on the event loop as often as without the worker.
 */
export const BACKSTOP_CHECKPOINT_PAGES = 30_000;

/**
 * Bytes the log file is cut back to when a writer starts it again from its beginning: a burst
 * that grew it does not keep its disk space.
 */
export const LOG_SIZE_LIMIT = 64 * 1024 * 1024;

// CommonJS run by the worker (`eval`): the same code whether the server runs from its sources or
// its build, with better-sqlite3 resolved by the caller.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file, { fileMustExist: true });
let copied = 0;
let last = { log: 0, checkpointed: 0 };
let timer;
const checkpoint = () => {
  let progressed = false;
  try {
    // PASSIVE: copies what no reader still needs, waits for nobody, and blocks no writer. It
    // answers the log's frames and how many of them are in the database file now.
    const [result] = db.pragma('wal_checkpoint(PASSIVE)');
    if (result && result.log >= 0) {
      // A log smaller than before was started again from its beginning by a writer.
      const done = result.log < last.log ? result.checkpointed : result.checkpointed - last.checkpointed;
      if (done > 0) copied += done;
      progressed = done > 0;
      last = result;
    }
  } catch {
    // The database busy or closing: the next turn tries again.
  }
  // While writers keep the log growing, go on at once: waiting would let the log reach the
  // writing connection's backstop, which then checkpoints on the event loop.
  timer = setTimeout(checkpoint, progressed ? 1 : workerData.intervalMs);
};
timer = setTimeout(checkpoint, workerData.intervalMs);
parentPort.on('message', (message) => {
  if (message === 'stats') parentPort.postMessage({ copied });
  if (message === 'close') {
    clearTimeout(timer);
    db.close();
    parentPort.close();
  }
});
`;

/**
 * Checkpoints a SQLite database in WAL mode from a worker thread, on its own connection, so that
 * the connection that serves requests never does. SQLite's automatic checkpoint runs in the
 * commit that takes the log past 1,000 pages: it copies those pages into the database file and
 * syncs it, inside that commit, on the event loop (half of a download-score refresh's time, and
 * its longest pauses, on a 100,000-package registry: bench/README.md, Stop 39). The serving
 * connection keeps an automatic checkpoint only as a backstop, far past where this one works.
 */
export class WalCheckpointer {
  readonly #worker: Worker;
  readonly #exited: Promise<void>;
  #closed: Promise<void> | undefined;

  constructor(file: string, intervalMs = CHECKPOINT_INTERVAL_MS) {
    const driver = createRequire(import.meta.url).resolve('better-sqlite3');
    this.#worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { file, driver, intervalMs },
      // Its own V8 heap, bounded: the loop above allocates next to nothing.
      resourceLimits: { maxYoungGenerationSizeMb: 1, maxOldGenerationSizeMb: 8 },
    });
    // Never what keeps a process alive; a worker that fails leaves the backstop to bound the log.
    this.#worker.unref();
    this.#worker.on('error', () => undefined);
    this.#exited = new Promise((resolve) => this.#worker.once('exit', () => resolve()));
  }

  /** Log pages the worker has copied into the database file so far. */
  copied(): Promise<number> {
    return new Promise((resolve, reject) => {
      const onMessage = (message: { copied: number }) => {
        this.#worker.off('exit', onExit);
        resolve(message.copied);
      };
      const onExit = () => {
        this.#worker.off('message', onMessage);
        reject(new Error('the checkpoint worker has stopped'));
      };
      this.#worker.once('message', onMessage);
      this.#worker.once('exit', onExit);
      this.#worker.postMessage('stats');
    });
  }

  /** Stops the worker and closes its connection (the last connection's close checkpoints). */
  close(): Promise<void> {
    // Waited for: the process must not end (or, in a command's top-level await, exit with 13)
    // for want of anything else to do meanwhile. A worker that has stopped already takes no
    // message and exits no more.
    this.#worker.ref();
    this.#worker.postMessage('close');
    this.#closed ??= this.#exited;
    return this.#closed;
  }
}
