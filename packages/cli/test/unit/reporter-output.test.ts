import { describe, expect, it, vi } from 'vitest';
import { Reporter, heading, success } from '../../src/output/reporter.js';
import { Spinner, SPINNER_DELAY_MS } from '../../src/output/spinner.js';

function stream(isTTY: boolean) {
  const chunks: string[] = [];
  return { isTTY, chunks, write: (chunk: string) => chunks.push(chunk), text: () => chunks.join('') };
}

function reporter(options: { tty: boolean; env?: Record<string, string>; json?: boolean }) {
  const stdout = stream(options.tty);
  const stderr = stream(options.tty);
  const r = new Reporter({ stdout, stderr, json: options.json ?? false, verbose: false, env: options.env ?? {} });
  r.result({ json: {}, text: [heading('Title'), 'plain', success('1 package updated successfully')] });
  r.warn('careful');
  r.error({ code: 'USAGE', message: 'bad', hint: 'do better', exitCode: 2 });
  return { stdout: stdout.text(), stderr: stderr.text() };
}

const ESC = '\x1b[';

describe('colour', () => {
  it('colours errors, warnings, success lines and headings on a terminal', () => {
    const { stdout, stderr } = reporter({ tty: true });
    expect(stdout).toBe(`${ESC}1mTitle${ESC}22m\nplain\n${ESC}32m1 package updated successfully${ESC}39m\n`);
    expect(stderr).toContain(`${ESC}33mWarning:${ESC}39m careful\n`);
    expect(stderr).toContain(`${ESC}31mError:${ESC}39m bad\n${ESC}36mHint:${ESC}39m do better\n`);
  });

  it.each([
    ['in a pipe', { tty: false }],
    ['with NO_COLOR', { tty: true, env: { NO_COLOR: '1' } }],
    ['with TERM=dumb', { tty: true, env: { TERM: 'dumb' } }],
    ['with FORCE_COLOR=0', { tty: true, env: { FORCE_COLOR: '0' } }],
    ['with --json, even with FORCE_COLOR', { tty: true, json: true, env: { FORCE_COLOR: '1' } }],
  ])('prints no escape codes %s', (_case, options) => {
    const { stdout, stderr } = reporter(options);
    expect(stdout + stderr).not.toContain(ESC);
    expect(stdout + stderr).toContain('bad');
  });

  it('colours a pipe when FORCE_COLOR asks', () => {
    expect(reporter({ tty: false, env: { FORCE_COLOR: '1' } }).stderr).toContain(`${ESC}31mError:`);
  });
});

describe('spinner', () => {
  function timers() {
    vi.useFakeTimers();
    return { setTimeout, clearTimeout, setInterval, clearInterval } as never;
  }

  it('shows nothing for work that ends within a second, and spins for longer work until the last ends', () => {
    const out = stream(true);
    try {
      const spinner = new Spinner(out, timers());
      const quick = spinner.begin('Waiting for registry');
      vi.advanceTimersByTime(SPINNER_DELAY_MS - 1);
      quick();
      vi.advanceTimersByTime(5000);
      expect(out.text()).toBe('');

      const first = spinner.begin('Waiting for registry');
      const second = spinner.begin('Waiting for registry');
      vi.advanceTimersByTime(SPINNER_DELAY_MS + 200);
      expect(out.text().endsWith(' Waiting for registry (2 requests)')).toBe(true);
      expect(out.text()).toContain('\r\x1b[2K');
      first();
      second();
      expect(out.chunks.at(-1)).toBe('\r\x1b[2K');
      const written = out.chunks.length;
      vi.advanceTimersByTime(5000);
      expect(out.chunks.length).toBe(written);
    } finally {
      vi.useRealTimers();
    }
  });

  it('is never drawn in a pipe or with --json, and clears its line before other output', () => {
    for (const [tty, json] of [
      [false, false],
      [true, true],
    ] as const) {
      const stderr = stream(tty);
      const r = new Reporter({ stdout: stream(tty), stderr, json, verbose: false, env: {}, timers: timers() });
      try {
        const end = r.activity('Waiting');
        vi.advanceTimersByTime(3000);
        end();
        expect(stderr.text()).toBe('');
      } finally {
        vi.useRealTimers();
      }
    }
    const stderr = stream(true);
    const r = new Reporter({ stdout: stream(true), stderr, json: false, verbose: false, env: {}, timers: timers() });
    try {
      const end = r.activity('Waiting');
      vi.advanceTimersByTime(SPINNER_DELAY_MS + 100);
      r.warn('mid-way');
      expect(stderr.text().endsWith('Waiting\r\x1b[2K\x1b[33mWarning:\x1b[39m mid-way\n')).toBe(true);
      end();
    } finally {
      vi.useRealTimers();
    }
  });
});
