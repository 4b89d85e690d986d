import type { Reporter } from './reporter.js';

/** Progress of one transfer (a download or an upload), told as bytes go by. */
export interface TransferProgress {
  advance(bytes: number): void;
  /** The transfer ended (done or failed): the line is cleared if one was drawn. */
  done(): void;
}

/** A transfer shorter than this shows nothing: a bar that flashes by only adds noise. */
const SHOW_AFTER_MS = 1000;
/** Redraws at most this often. */
const REDRAW_MS = 100;
const WIDTH = 20;

const NONE: TransferProgress = { advance: () => undefined, done: () => undefined };

/**
 * A progress line on stderr for a transfer that takes more than about a second: bytes so far
 * (of the total when known), rate and time left, redrawn in place. Only on a terminal and never
 * with --json, so logs, pipes and JSON output never see it.
 */
export function transferProgress(
  reporter: Reporter,
  isTTY: boolean | undefined,
  totalBytes: number | undefined,
  label: string,
  now: () => number = Date.now,
): TransferProgress {
  if (!isTTY || reporter.json) return NONE;
  // The bar owns the line while the transfer lasts: the request spinner stays off it.
  const resume = reporter.pauseActivity();
  const started = now();
  let bytes = 0;
  let drawnAt: number | undefined;
  return {
    advance(count) {
      bytes += count;
      const at = now();
      if (at - started < SHOW_AFTER_MS) return;
      if (drawnAt !== undefined && at - drawnAt < REDRAW_MS) return;
      drawnAt = at;
      reporter.raw(`\r\x1b[2K${transferLine(label, bytes, totalBytes, (at - started) / 1000)}`, 'stderr');
    },
    done() {
      if (drawnAt !== undefined) reporter.raw('\r\x1b[2K', 'stderr');
      resume();
    },
  };
}

/** `label ████░░░░ 12.0 MB / 300.0 MB  40.0 MB/s  7 s left`, or without bar and time left when the total is unknown. */
export function transferLine(label: string, bytes: number, totalBytes: number | undefined, seconds: number): string {
  const rate = seconds > 0 ? bytes / seconds : 0;
  const parts = [label];
  if (totalBytes !== undefined && totalBytes > 0) {
    const filled = Math.min(WIDTH, Math.round((bytes / totalBytes) * WIDTH));
    parts.push(`${'█'.repeat(filled)}${'░'.repeat(WIDTH - filled)}`, `${megabytes(bytes)} / ${megabytes(totalBytes)}`);
  } else {
    parts.push(megabytes(bytes));
  }
  parts.push(`${megabytes(rate)}/s`);
  if (totalBytes !== undefined && rate > 0 && bytes < totalBytes) parts.push(`${duration((totalBytes - bytes) / rate)} left`);
  return parts.join('  ');
}

/** Bytes as the progress line and download messages show them: `12.0 MB`. */
export function megabytes(bytes: number): string {
  return `${(bytes / 1_000_000).toFixed(1)} MB`;
}

function duration(seconds: number): string {
  const whole = Math.ceil(seconds);
  if (whole < 60) return `${whole} s`;
  const minutes = Math.floor(whole / 60);
  return `${minutes} min ${String(whole % 60).padStart(2, '0')} s`;
}
