import type { OutputStream } from '../deps.js';
import type { ErrorReport } from './errors.js';

/** What a command hands back: the same outcome for people and for machines. */
export interface CommandResult {
  /** Printed with --json; `success: true` is added unless the command sets `success` itself. */
  json: Record<string, unknown>;
  /** Printed otherwise, one string per line, on stdout. */
  text: string[];
}

export interface ReporterOptions {
  stdout: OutputStream;
  stderr: OutputStream;
  json: boolean;
  verbose: boolean;
}

/**
 * The only writer of stdout and stderr. Human mode: results on stdout, errors, warnings and
 * traces on stderr. JSON mode: exactly one JSON document on stdout (result or error), while
 * prompts, warnings and traces go to stderr. Every registered secret is masked in everything
 * written, as a last line of defence for tokens.
 */
export class Reporter {
  readonly json: boolean;
  readonly verbose: boolean;
  readonly #stdout: OutputStream;
  readonly #stderr: OutputStream;
  readonly #secrets = new Set<string>();

  constructor(options: ReporterOptions) {
    this.json = options.json;
    this.verbose = options.verbose;
    this.#stdout = options.stdout;
    this.#stderr = options.stderr;
  }

  /** Masks `secret` in all output from now on. */
  addSecret(secret: string): void {
    if (secret.length >= 4) this.#secrets.add(secret);
  }

  /** A progress line printed as it happens (human mode only). */
  line(text = ''): void {
    if (!this.json) this.#stdout.write(`${this.#mask(text)}\n`);
  }

  /** A warning, on stderr in both modes. */
  warn(text: string): void {
    this.#stderr.write(`Warning: ${this.#mask(text)}\n`);
  }

  /** A --verbose trace, on stderr. */
  debug(text: string): void {
    if (this.verbose) this.#stderr.write(`${this.#mask(text)}\n`);
  }

  /** Where interactive prompts are written: the transcript in human mode, stderr with --json. */
  get promptOutput(): OutputStream {
    const target = this.json ? this.#stderr : this.#stdout;
    return { write: (chunk: string) => target.write(this.#mask(chunk)), isTTY: target.isTTY };
  }

  result(result: CommandResult): void {
    if (this.json) {
      this.#stdout.write(`${this.#mask(JSON.stringify({ success: true, ...result.json }, null, 2))}\n`);
    } else if (result.text.length > 0) {
      this.#stdout.write(`${this.#mask(result.text.join('\n'))}\n`);
    }
  }

  error(report: ErrorReport): void {
    if (this.json) {
      const body = { success: false, error: report.message, code: report.code, ...(report.hint ? { hint: report.hint } : {}) };
      this.#stdout.write(`${this.#mask(JSON.stringify(body, null, 2))}\n`);
    } else {
      this.#stderr.write(`${this.#mask(`Error: ${report.message}`)}\n`);
      if (report.hint) this.#stderr.write(`${this.#mask(`Hint: ${report.hint}`)}\n`);
    }
  }

  /** Raw text for help and version output (stdout, or stderr for help shown after a usage error). */
  raw(text: string, stream: 'stdout' | 'stderr' = 'stdout'): void {
    (stream === 'stdout' ? this.#stdout : this.#stderr).write(this.#mask(text));
  }

  #mask(text: string): string {
    let out = text;
    for (const secret of this.#secrets) out = out.split(secret).join('***');
    return out;
  }
}
