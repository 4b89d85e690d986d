import { describe, expect, it } from 'vitest';
import pino from 'pino';
import { RequestLog, createLogger, writesWithoutWaiting } from '../../src/plugins/logging.js';
import type { RequestContext } from '../../src/context.js';

function capture(): { lines: string[]; write(line: string): void } {
  const lines: string[] = [];
  return { lines, write: (line: string) => void lines.push(line) };
}

/** The server's logger, writing into `stream`. */
function logger(stream: { write(line: string): void }): pino.Logger {
  return createLogger('info', stream);
}

const ctx = (tenant: string, user?: string) =>
  ({ tenant, caller: user === undefined ? null : { user, tokenHash: 'h', readonly: false } }) as unknown as RequestContext;

const cases: [string, string, number, number, RequestContext | undefined, string | undefined][] = [
  ['GET', '/com.example.pkg', 200, 1.23456, undefined, '127.0.0.1'],
  ['GET', '/com.example.pkg/-/com.example.pkg-1.0.0.tgz', 304, 0.004, ctx('', 'alice'), '::1'],
  ['PUT', '/-/user/token/secret-token', 401, 12, ctx('acme', 'bob'), '10.0.0.1'],
  ['GET', '/-/v1/search?text=a"b\\c&password=x', 200, 3.5, ctx('acme'), undefined],
  ['GET', '/com.example.ünïcode\u0001', 404, 0, ctx('t', 'zoë "quoted"'), '127.0.0.1'],
];

describe('request log lines', () => {
  it.each(cases)('%s %s is written as pino would write it', (method, url, status, ms, context, ip) => {
    const ours = capture();
    const requestLog = new RequestLog(logger(ours));
    requestLog.write('req-7', method, url, status, ms, context, ip);
    requestLog.flush();
    const pinos = capture();
    logger(pinos)
      .child({ reqId: 'req-7' })
      .info(
        {
          method,
          url: url
            .replace(/\/-\/user\/token\/[^/?#]+/, '/-/user/token/[redacted]')
            .replace(/([?&]password=)[^&#]*/, '$1[redacted]'),
          status,
          ms: Math.round(ms * 100) / 100,
          tenant: context?.tenant || undefined,
          user: context?.caller?.user,
          ip,
        },
        'request',
      );
    const withoutTime = (line: string) => line.replace(/"time":\d+,/, '');
    expect(ours.lines).toHaveLength(1);
    expect(withoutTime(ours.lines[0]!)).toBe(withoutTime(pinos.lines[0]!));
    expect(() => JSON.parse(ours.lines[0]!)).not.toThrow();
  });

  it('hands the lines of one turn of the event loop to the destination in one write, after the turn', async () => {
    const out = capture();
    const requestLog = new RequestLog(logger(out));
    for (let i = 0; i < 3; i++) requestLog.write(`req-${i}`, 'GET', `/p${i}`, 200, 1, undefined, '::1');
    expect(out.lines).toEqual([]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(out.lines).toHaveLength(1);
    const lines = out.lines[0]!.split('\n');
    expect(lines.pop()).toBe('');
    expect(lines.map((line) => (JSON.parse(line) as { url: string }).url)).toEqual(['/p0', '/p1', '/p2']);
    // nothing is written twice
    await new Promise((resolve) => setImmediate(resolve));
    expect(out.lines).toHaveLength(1);
  });

  it('writes a batch at once when it reaches 16 KiB, and what is left on flush', () => {
    const out = capture();
    const requestLog = new RequestLog(logger(out));
    const url = `/${'x'.repeat(1000)}`;
    for (let i = 0; i < 20; i++) requestLog.write(`req-${i}`, 'GET', url, 200, 1, undefined, '::1');
    expect(out.lines).toHaveLength(1);
    expect(out.lines[0]!.length).toBeGreaterThanOrEqual(16 * 1024);
    requestLog.flush();
    expect(out.lines).toHaveLength(2);
    expect(out.lines.join('').split('\n').filter(Boolean)).toHaveLength(20);
  });

  it('writes nothing below its level, and goes through the logger when it is not pino', () => {
    const quiet = capture();
    const warnOnly = pino({ level: 'warn' }, quiet);
    new RequestLog(warnOnly).write('req-1', 'GET', '/x', 200, 1, undefined, '::1');
    expect(quiet.lines).toEqual([]);
    const seen: unknown[] = [];
    const plain = { info: (fields: unknown) => void seen.push(fields) } as unknown as pino.Logger;
    new RequestLog(plain).write('req-2', 'GET', '/x', 200, 1, undefined, '::1');
    expect(seen).toEqual([{ reqId: 'req-2', method: 'GET', url: '/x', status: 200, ms: 1, ip: '::1' }]);
  });
});

describe('writesWithoutWaiting', () => {
  it('is true for a regular file, false for a directory or a descriptor that is not open', async () => {
    const { mkdtempSync, openSync, closeSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const path = await import('node:path');
    const dir = mkdtempSync(path.join(tmpdir(), 'pkg-log-fd-'));
    const file = openSync(path.join(dir, 'log'), 'w');
    const directory = openSync(dir, 'r');
    try {
      expect(writesWithoutWaiting(file)).toBe(true);
      expect(writesWithoutWaiting(directory)).toBe(false);
    } finally {
      closeSync(file);
      closeSync(directory);
      rmSync(dir, { recursive: true });
    }
    expect(writesWithoutWaiting(file)).toBe(false);
  });
});
