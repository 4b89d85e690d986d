import type { OutputStream } from '../deps.js';
import { colourEnabled, paint, type LineStyle } from './colour.js';
import type { ExitCode } from '../errors/client-errors.js';
import type { ErrorReport } from './error-report.js';
import { Spinner, type SpinnerTimers } from './spinner.js';

/** A line of human output with what it means; the reporter colours it on a terminal. */
export interface StyledLine {
  text: string;
  style: LineStyle;
}
export type TextLine = string | StyledLine;

export const success = (text: string): StyledLine => ({ text, style: 'success' });
export const heading = (text: string): StyledLine => ({ text, style: 'heading' });
export const muted = (text: string): StyledLine => ({ text, style: 'muted' });

/** A line's text, whatever its style. */
export function lineText(line: TextLine): string {
  return typeof line === 'string' ? line : line.text;
}

/** What a command hands back: the same outcome for people and for machines. */
export interface CommandResult {
  /** Printed with --json; `success: true` is added unless the command sets `success` itself. */
  json: Record<string, unknown>;
  /** Printed otherwise, one line each, on stdout. */
  text: TextLine[];
  /**
   * The exit code when it is not 0 although the command ran to the end: a dry run that found
   * conflicts, `outdated` that found something outdated.
   */
  exitCode?: ExitCode;
}

export interface ReporterOptions {
  stdout: OutputStream;
  stderr: OutputStream;
  json: boolean;
  verbose: boolean;
  /** The environment, for NO_COLOR and FORCE_COLOR. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Timers of the spinner (default: the global ones). */
  timers?: SpinnerTimers;
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
  /** Whether stdout and stderr get colours. */
  readonly colourOut: boolean;
  readonly colourErr: boolean;

  constructor(options: ReporterOptions) {
    this.json = options.json;
    this.verbose = options.verbose;
    this.#stdout = options.stdout;
    this.#stderr = options.stderr;
    this.colourOut = colourEnabled(options.env ?? {}, options.stdout, options.json);
    this.colourErr = colourEnabled(options.env ?? {}, options.stderr, options.json);
    // Redrawing in place needs a terminal; JSON mode and pipes get no spinner at all.
    const stderr = this.#stderr;
    this.#spinner =
      options.stderr.isTTY === true && !options.json
        ? new Spinner({ write: (chunk: string) => stderr.write(chunk), isTTY: true }, options.timers ?? globalThis)
        : null;
  }

  readonly #spinner: Spinner | null;

  /**
   * Work that may take a while (a registry request): after a second a spinner with `label`
   * shows on a terminal until every such piece of work has ended. Returns the end.
   */
  activity(label: string): () => void {
    return this.#spinner?.begin(label) ?? (() => undefined);
  }

  /** Keeps the spinner off the line while the caller draws there (a progress bar, a prompt). */
  pauseActivity(): () => void {
    return this.#spinner?.pause() ?? (() => undefined);
  }

  #writeErr(text: string): void {
    this.#spinner?.clear();
    this.#stderr.write(text);
  }

  #writeOut(text: string): void {
    this.#spinner?.clear();
    this.#stdout.write(text);
  }

  /** Masks `secret` in all output from now on. */
  addSecret(secret: string): void {
    if (secret.length >= 4) this.#secrets.add(secret);
  }

  /** A progress line printed as it happens (human mode only). */
  line(text = ''): void {
    if (!this.json) this.#writeOut(`${this.#mask(text)}\n`);
  }

  /** A warning, on stderr in both modes. */
  warn(text: string): void {
    this.#writeErr(`${paint('warning', 'Warning:', this.colourErr)} ${this.#mask(text)}\n`);
  }

  /** A --verbose trace, on stderr. */
  debug(text: string): void {
    if (this.verbose) this.#writeErr(`${this.#mask(text)}\n`);
  }

  /** Where interactive prompts are written: the transcript in human mode, stderr with --json. */
  get promptOutput(): OutputStream {
    const target = this.json ? this.#stderr : this.#stdout;
    return {
      write: (chunk: string) => {
        this.#spinner?.clear();
        return target.write(this.#mask(chunk));
      },
      isTTY: target.isTTY,
    };
  }

  result(result: CommandResult): void {
    if (this.json) {
      this.#writeOut(`${this.#mask(JSON.stringify({ success: true, ...result.json }, null, 2))}\n`);
    } else if (result.text.length > 0) {
      const lines = result.text.map((line) =>
        typeof line === 'string' ? this.#mask(line) : paint(line.style, this.#mask(line.text), this.colourOut),
      );
      this.#writeOut(`${lines.join('\n')}\n`);
    }
  }

  error(report: ErrorReport): void {
    if (this.json) {
      const body = { success: false, error: report.message, code: report.code, ...(report.hint ? { hint: report.hint } : {}) };
      this.#writeOut(`${this.#mask(JSON.stringify(body, null, 2))}\n`);
    } else {
      this.#writeErr(`${paint('error', 'Error:', this.colourErr)} ${this.#mask(report.message)}\n`);
      if (report.hint) this.#writeErr(`${paint('hint', 'Hint:', this.colourErr)} ${this.#mask(report.hint)}\n`);
    }
  }

  /** Raw text for help and version output (stdout, or stderr for help shown after a usage error). */
  raw(text: string, stream: 'stdout' | 'stderr' = 'stdout'): void {
    if (stream === 'stdout') this.#writeOut(this.#mask(text));
    else this.#writeErr(this.#mask(text));
  }

  #mask(text: string): string {
    let out = text;
    for (const secret of this.#secrets) out = out.split(secret).join('***');
    return out;
  }
}
