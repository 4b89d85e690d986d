import type { Reporter } from './reporter.js';

/** Progress of one transfer (an upload or a download), fed as bytes move. */
export interface TransferProgress {
  advance(bytes: number): void;
  done(): void;
}

const WIDTH = 24;
/** Quick transfers show nothing: the bar appears only once one has lasted this long. */
const SHOW_AFTER_MS = 1000;
const REDRAW_EVERY_MS = 100;

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}

/**
 * A progress bar on stderr for a transfer of `totalBytes` (unknown: a running count instead),
 * redrawn in place: only when stderr is a terminal and the output is not JSON, so logs and pipes
 * never see carriage returns, and only after about a second.
 */
export function transferProgress(
  reporter: Reporter,
  isTTY: boolean | undefined,
  totalBytes: number | undefined,
  label: string,
  now: () => number = Date.now,
): TransferProgress {
  if (!isTTY || reporter.json) return { advance: () => undefined, done: () => undefined };
  const started = now();
  let moved = 0;
  let drawnAt: number | null = null;
  const draw = () => {
    let line: string;
    if (totalBytes !== undefined && totalBytes > 0) {
      const share = Math.min(1, moved / totalBytes);
      const filled = Math.round(share * WIDTH);
      line = `${'█'.repeat(filled)}${'░'.repeat(WIDTH - filled)} ${Math.round(share * 100)}% ${formatBytes(moved)}/${formatBytes(totalBytes)} ${label}`;
    } else {
      line = `${formatBytes(moved)} ${label}`;
    }
    reporter.raw(`\r\x1b[2K${line}`, 'stderr');
  };
  return {
    advance(bytes) {
      moved += bytes;
      const time = now();
      if (time - started < SHOW_AFTER_MS) return;
      if (drawnAt !== null && time - drawnAt < REDRAW_EVERY_MS) return;
      drawnAt = time;
      draw();
    },
    done() {
      if (drawnAt !== null) reporter.raw('\r\x1b[2K', 'stderr');
    },
  };
}
