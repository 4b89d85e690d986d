import type { OutputStream } from '../deps.js';

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
/** Work that ends sooner shows nothing: a spinner that flashes is noise. */
export const SPINNER_DELAY_MS = 1000;
const FRAME_MS = 80;

/** The timers the spinner needs (tests pass their own). */
export interface SpinnerTimers {
  setTimeout(callback: () => void, ms: number): { unref?(): unknown };
  clearTimeout(handle: unknown): void;
  setInterval(callback: () => void, ms: number): { unref?(): unknown };
  clearInterval(handle: unknown): void;
}

/**
 * One spinner line on stderr for registry requests in flight: shown when some have been
 * running for a second, redrawn in place, gone when the last ends. Only on a terminal and never
 * with --json (the reporter decides); anything else written to stderr clears it first.
 */
export class Spinner {
  readonly #out: OutputStream;
  readonly #timers: SpinnerTimers;
  #active = 0;
  #label = '';
  #frame = 0;
  #delay: unknown = null;
  #ticker: unknown = null;
  #drawn = false;
  #paused = 0;

  constructor(out: OutputStream, timers: SpinnerTimers) {
    this.#out = out;
    this.#timers = timers;
  }

  /** One more piece of work under way; returns its end. */
  begin(label: string): () => void {
    this.#active++;
    this.#label = label;
    if (this.#delay === null && this.#ticker === null) {
      const delay = this.#timers.setTimeout(() => this.#show(), SPINNER_DELAY_MS);
      delay.unref?.();
      this.#delay = delay;
    }
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.#active--;
      if (this.#active === 0) this.#stop();
    };
  }

  /** Hides the spinner while something else draws on the line (a progress bar, a prompt). */
  pause(): () => void {
    this.#paused++;
    this.clear();
    let resumed = false;
    return () => {
      if (resumed) return;
      resumed = true;
      this.#paused--;
    };
  }

  /** Removes the drawn line, if any (the next frame draws it again). */
  clear(): void {
    if (this.#drawn) this.#out.write('\r\x1b[2K');
    this.#drawn = false;
  }

  #show(): void {
    this.#delay = null;
    if (this.#active === 0) return;
    const ticker = this.#timers.setInterval(() => this.#draw(), FRAME_MS);
    ticker.unref?.();
    this.#ticker = ticker;
    this.#draw();
  }

  #draw(): void {
    if (this.#paused > 0) return;
    this.#frame = (this.#frame + 1) % FRAMES.length;
    const count = this.#active > 1 ? ` (${this.#active} requests)` : '';
    this.#out.write(`\r\x1b[2K${FRAMES[this.#frame]} ${this.#label}${count}`);
    this.#drawn = true;
  }

  #stop(): void {
    if (this.#delay !== null) this.#timers.clearTimeout(this.#delay);
    if (this.#ticker !== null) this.#timers.clearInterval(this.#ticker);
    this.#delay = null;
    this.#ticker = null;
    this.clear();
  }
}
