import type { LogStream } from './logging.js';
import { valueText } from '../config/value-text.js';

/** Where the data of a server lives, for the start-up line a person reads. */
export interface DataLocation {
  data: string;
  database: string;
  storage: string;
}

const LEVELS: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };

/** Keeps a URL's password out of a terminal (a database URL may carry one). */
function withoutPassword(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:/@]+):[^@/]*@/i, '$1:***@');
}

function where(location: DataLocation): string {
  const embedded = location.database.startsWith('sqlite:') && !location.storage.includes('://');
  return embedded
    ? `data in ${location.data}`
    : `metadata in ${withoutPassword(location.database)}, tarballs in ${withoutPassword(location.storage)}`;
}

function time(ms: unknown): string {
  return typeof ms === 'number' ? new Date(ms).toTimeString().slice(0, 8) : '--:--:--';
}

/** One log entry as a line a person reads. */
export function readableLine(entry: Record<string, unknown>, location: DataLocation): string | null {
  const { level, time: at, msg, pid: _pid, hostname: _host, reqId: _reqId, ...fields } = entry;
  if (msg === 'pkg-registry listening') return `pkg-registry listening on ${String(fields.address)}, ${where(location)}`;
  if (msg === 'request') {
    const who = [fields.tenant ? `tenant ${valueText(fields.tenant)}` : '', fields.user ? valueText(fields.user) : ''].filter(
      Boolean,
    );
    return `${time(at)} ${String(fields.method)} ${String(fields.url)} ${String(fields.status)} ${String(fields.ms)} ms${who.length ? ` (${who.join(', ')})` : ''}`;
  }
  const { err, ...rest } = fields as { err?: { message?: string } } & Record<string, unknown>;
  const details = Object.entries(rest)
    .map(([key, value]) => `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`)
    .join(' ');
  const label = LEVELS[Number(level)] ?? String(level);
  const error = err?.message ? `: ${err.message}` : '';
  return `${time(at)} ${label.padEnd(5)} ${valueText(msg ?? '')}${error}${details ? `  ${details}` : ''}`;
}

/**
 * The log for a terminal: the JSON lines the logger writes (one or several per write), each
 * turned into readable text. Stdout that is not a terminal keeps the JSON lines.
 */
export function readableLog(out: { write(text: string): unknown }, location: DataLocation): LogStream {
  return {
    write(chunk: string) {
      let text = '';
      for (const line of chunk.split('\n')) {
        if (line === '') continue;
        let entry: Record<string, unknown>;
        try {
          entry = JSON.parse(line) as Record<string, unknown>;
        } catch {
          text += `${line}\n`;
          continue;
        }
        const readable = readableLine(entry, location);
        if (readable !== null) text += `${readable}\n`;
      }
      if (text) out.write(text);
    },
  };
}
