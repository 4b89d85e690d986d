import type { InputStream, OutputStream } from '../deps.js';
import { ClientError } from '../errors/client-errors.js';

/**
 * Asks questions on a terminal or reads answers piped in, one line each. The transcript is
 * the same either way: `Username: alice`, `Password: [hidden]`, `Email: ...`. In a terminal
 * the password is read in raw mode, so nothing of it is echoed; from a pipe nothing is
 * echoed anyway and the answers are written after the prompts. One reader serves every
 * question, so piped answers arriving in one chunk are not lost between questions.
 */
export class Prompter {
  readonly #input: InputStream;
  readonly #output: OutputStream;
  #buffer = '';
  #ended = false;
  #listening = false;
  #wake: (() => void) | null = null;
  #failure: Error | null = null;

  constructor(input: InputStream, output: OutputStream) {
    this.#input = input;
    this.#output = output;
  }

  get interactive(): boolean {
    return Boolean(this.#input.isTTY);
  }

  /** Asks for a visible answer. */
  async ask(question: string): Promise<string> {
    this.#output.write(`${question}: `);
    const answer = await this.#readLine();
    if (!this.interactive) this.#output.write(`${answer}\n`);
    return answer.trim();
  }

  /** Asks for a secret: not echoed, shown as `[hidden]`. */
  async askHidden(question: string): Promise<string> {
    this.#output.write(`${question}: `);
    const answer = this.interactive ? await this.#readHidden() : await this.#readLine();
    this.#output.write('[hidden]\n');
    return answer;
  }

  /** Stops reading so the process can exit. */
  close(): void {
    if (this.#listening) {
      this.#input.removeListener('data', this.#onData);
      this.#input.removeListener('end', this.#onEnd);
      this.#input.removeListener('error', this.#onError);
      this.#listening = false;
    }
    this.#input.pause();
  }

  async #readLine(): Promise<string> {
    this.#listen();
    for (;;) {
      const newline = this.#buffer.indexOf('\n');
      if (newline >= 0) {
        const line = this.#buffer.slice(0, newline).replace(/\r$/, '');
        this.#buffer = this.#buffer.slice(newline + 1);
        this.#input.pause();
        return line;
      }
      if (this.#failure) throw this.#failure;
      if (this.#ended) {
        if (this.#buffer.length > 0) {
          const line = this.#buffer;
          this.#buffer = '';
          return line;
        }
        throw new ClientError('INPUT_ENDED');
      }
      await this.#waitForInput();
    }
  }

  async #readHidden(): Promise<string> {
    this.#listen();
    this.#input.setRawMode?.(true);
    try {
      let secret = '';
      for (;;) {
        while (this.#buffer.length > 0) {
          const char = this.#buffer[0]!;
          this.#buffer = this.#buffer.slice(1);
          if (char === '\r' || char === '\n') {
            if (char === '\r' && this.#buffer.startsWith('\n')) this.#buffer = this.#buffer.slice(1);
            return secret;
          }
          if (char === '\u0003') throw new ClientError('CANCELLED');
          if (char === '\u0004') {
            if (secret.length === 0) throw new ClientError('INPUT_ENDED');
            return secret;
          }
          if (char === '\u007f' || char === '\b') secret = secret.slice(0, -1);
          else if (char >= ' ') secret += char;
        }
        if (this.#failure) throw this.#failure;
        if (this.#ended) return secret;
        await this.#waitForInput();
      }
    } finally {
      this.#input.setRawMode?.(false);
      this.#input.pause();
    }
  }

  #listen(): void {
    if (this.#listening) return;
    this.#listening = true;
    this.#input.setEncoding('utf8');
    this.#input.on('data', this.#onData);
    this.#input.on('end', this.#onEnd);
    this.#input.on('error', this.#onError);
  }

  #waitForInput(): Promise<void> {
    return new Promise((resolve) => {
      this.#wake = resolve;
      this.#input.resume();
    });
  }

  #notify(): void {
    const wake = this.#wake;
    this.#wake = null;
    wake?.();
  }

  readonly #onData = (chunk: string | Buffer) => {
    this.#buffer += chunk.toString();
    this.#notify();
  };

  readonly #onEnd = () => {
    this.#ended = true;
    this.#notify();
  };

  readonly #onError = (err: Error) => {
    this.#failure = err;
    this.#notify();
  };
}
