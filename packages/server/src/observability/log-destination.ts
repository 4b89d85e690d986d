import { write, writeSync } from 'node:fs';

/** Lines kept waiting beyond this are dropped (and counted) rather than exhausting memory. */
const MAX_PENDING_BYTES = 32 * 1024 * 1024;

/**
 * The JSON-lines log on a file descriptor (stdout), written in batches: the lines of one turn of
 * the event loop go out in one write, off the main thread, and lines that arrive while a write is
 * in flight join the next one. Pino's own asynchronous destination (sonic-boom) measures the
 * UTF-8 length of its whole pending buffer on every line, which under load cost more than the
 * rest of a cached request (bench/README.md). What is pending is written synchronously at exit.
 */
export class BatchedLogDestination {
  readonly #fd: number;
  #pending: string[] = [];
  #pendingBytes = 0;
  #writing = false;
  #scheduled = false;
  #dropped = 0;

  constructor(fd: number) {
    this.#fd = fd;
    process.once('exit', () => this.flushSync());
  }

  write(line: string): void {
    if (this.#pendingBytes > MAX_PENDING_BYTES) {
      this.#dropped++;
      return;
    }
    this.#pending.push(line);
    this.#pendingBytes += line.length;
    if (!this.#writing && !this.#scheduled) {
      this.#scheduled = true;
      setImmediate(() => this.#writeBatch());
    }
  }

  /** Writes everything pending now, on this thread (at exit). */
  flushSync(): void {
    const chunk = this.#take();
    if (chunk.length === 0) return;
    try {
      writeSync(this.#fd, chunk);
    } catch {
      // Nowhere left to report a log that cannot be written.
    }
  }

  #take(): string {
    if (this.#dropped > 0) {
      this.#pending.push(
        `${JSON.stringify({ level: 40, time: Date.now(), msg: `log lines dropped: ${this.#dropped} (the log could not keep up)` })}\n`,
      );
      this.#dropped = 0;
    }
    const chunk = this.#pending.join('');
    this.#pending = [];
    this.#pendingBytes = 0;
    return chunk;
  }

  #writeBatch(): void {
    this.#scheduled = false;
    if (this.#writing || this.#pending.length === 0) return;
    this.#writing = true;
    this.#writeOut(Buffer.from(this.#take()));
  }

  #writeOut(bytes: Buffer): void {
    write(this.#fd, bytes, 0, bytes.length, null, (err, written) => {
      if (err && (err as NodeJS.ErrnoException).code === 'EAGAIN') {
        // A non-blocking pipe that is full: try again shortly.
        setTimeout(() => this.#writeOut(bytes), 10).unref();
        return;
      }
      if (!err && written < bytes.length) return this.#writeOut(bytes.subarray(written));
      this.#writing = false;
      if (this.#pending.length > 0) this.#writeBatch();
    });
  }
}
