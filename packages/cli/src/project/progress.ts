import type { DownloadProgress } from '../cache/tarball-cache.js';
import type { CommandContext } from '../context.js';
import type { Reporter } from '../output/reporter.js';
import { transferProgress } from '../output/transfer-progress.js';

export interface Progress {
  tick(label: string): void;
  done(): void;
}

const WIDTH = 24;

/**
 * A progress bar on stderr, redrawn in place: only when stderr is a terminal and the output is
 * not JSON, so logs and pipes never see carriage returns.
 */
export function progressBar(reporter: Reporter, isTTY: boolean | undefined, total: number): Progress {
  if (!isTTY || reporter.json || total === 0) return { tick: () => undefined, done: () => undefined };
  let count = 0;
  const resume = reporter.pauseActivity();
  const draw = (label: string) => {
    const filled = Math.round((count / total) * WIDTH);
    const bar = `${'█'.repeat(filled)}${'░'.repeat(WIDTH - filled)}`;
    reporter.raw(`\r\x1b[2K${bar} ${count}/${total} ${label}`, 'stderr');
  };
  draw('');
  return {
    tick(label) {
      count++;
      draw(label);
    },
    done() {
      reporter.raw('\r\x1b[2K', 'stderr');
      resume();
    },
  };
}

/** A download's progress line (output/transfer-progress.ts) on this run's stderr. */
export function downloadProgress(ctx: CommandContext, record: { name: string; version: string }): DownloadProgress {
  return (total) =>
    transferProgress(ctx.reporter, ctx.deps.stderr.isTTY, total, `${record.name}@${record.version}`, () =>
      ctx.deps.now().getTime(),
    );
}
