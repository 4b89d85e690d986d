import { describe, expect, it } from 'vitest';
import { Reporter } from '../../src/output/reporter.js';
import { transferProgress } from '../../src/output/transfer-progress.js';
import { capture } from '../support/deps.js';

function setup(json = false) {
  const stderr = capture(true);
  const reporter = new Reporter({ stdout: capture(), stderr, json, verbose: false });
  let time = 0;
  return { stderr, reporter, tick: (ms: number) => (time += ms), now: () => time };
}

describe('transferProgress', () => {
  it('shows nothing for a transfer shorter than a second', () => {
    const { stderr, reporter, tick, now } = setup();
    const progress = transferProgress(reporter, true, 1000, 'upload', now);
    tick(500);
    progress.advance(1000);
    progress.done();
    expect(stderr.text()).toBe('');
  });

  it('draws the share done after a second, redraws at most every 100 ms, and clears its line', () => {
    const { stderr, reporter, tick, now } = setup();
    const progress = transferProgress(reporter, true, 4 * 1024 * 1024, 'com.vendor.tool@1.0.0', now);
    tick(1200);
    progress.advance(1024 * 1024);
    tick(10);
    progress.advance(1024 * 1024);
    tick(200);
    progress.advance(2 * 1024 * 1024);
    progress.done();
    const frames = stderr.text().split('\r\x1b[2K').filter(Boolean);
    // Bytes of the total, rate and time left (output/transfer-progress.ts transferLine).
    expect(frames).toEqual([
      `com.vendor.tool@1.0.0  ${'█'.repeat(5)}${'░'.repeat(15)}  1.0 MB / 4.2 MB  0.9 MB/s  4 s left`,
      `com.vendor.tool@1.0.0  ${'█'.repeat(20)}  4.2 MB / 4.2 MB  3.0 MB/s`,
    ]);
    expect(stderr.text().endsWith('\r\x1b[2K')).toBe(true);
  });

  it('never draws when piped or with --json', () => {
    for (const [isTTY, json] of [
      [false, false],
      [true, true],
    ] as const) {
      const { stderr, reporter, tick, now } = setup(json);
      const progress = transferProgress(reporter, isTTY, 10, 'x', now);
      tick(5000);
      progress.advance(10);
      progress.done();
      expect(stderr.text()).toBe('');
    }
  });
});
