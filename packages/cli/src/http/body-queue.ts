/**
 * A response body handed to its reader chunk by chunk, exactly as the connection delivered it.
 * undici's own body (a Readable) discards what it has buffered when the connection breaks, so
 * a download cut off would lose up to its buffer's worth of bytes that had arrived, and resume
 * from before the cut; here every chunk that reached the process is read before the error is.
 * Backpressure is kept: past `highWater` bytes waiting, the connection is paused until the
 * reader has taken them down to half of it.
 */

/** What the queue needs of the request it reads: pause, resume, give up. */
export interface BodySource {
  pause(): void;
  resume(): void;
  abort(reason: Error): void;
}

const DEFAULT_HIGH_WATER = 1024 * 1024;

export class BodyQueue implements AsyncIterable<Uint8Array> {
  readonly #source: BodySource;
  readonly #highWater: number;
  readonly #chunks: Buffer[] = [];
  #queued = 0;
  #paused = false;
  #ended = false;
  #error: Error | null = null;
  #wake: (() => void) | null = null;

  constructor(source: BodySource, highWater = DEFAULT_HIGH_WATER) {
    this.#source = source;
    this.#highWater = highWater;
  }

  /** A chunk arrived. */
  push(chunk: Buffer): void {
    this.#chunks.push(chunk);
    this.#queued += chunk.length;
    if (!this.#paused && this.#queued >= this.#highWater) {
      this.#paused = true;
      this.#source.pause();
    }
    this.#notify();
  }

  /** The body is complete. */
  end(): void {
    this.#ended = true;
    this.#notify();
  }

  /** The body broke off: the reader gets `error` after the chunks that came before it. */
  fail(error: Error): void {
    if (this.#ended || this.#error) return;
    this.#error = error;
    this.#notify();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<Uint8Array> {
    let finished = false;
    try {
      for (;;) {
        const chunk = this.#chunks.shift();
        if (chunk) {
          this.#queued -= chunk.length;
          if (this.#paused && this.#queued <= this.#highWater / 2) {
            this.#paused = false;
            this.#source.resume();
          }
          yield chunk;
          continue;
        }
        if (this.#error) {
          finished = true;
          throw this.#error;
        }
        if (this.#ended) {
          finished = true;
          return;
        }
        await new Promise<void>((resolve) => (this.#wake = resolve));
      }
    } finally {
      // The reader left early: the connection is released, not left waiting.
      if (!finished) this.#source.abort(new Error('the response body was not read to its end'));
    }
  }

  #notify(): void {
    const wake = this.#wake;
    this.#wake = null;
    wake?.();
  }
}
