/**
 * Periods of npm's download-counts API (`/downloads/point/{period}/<pkg>`): `last-day`,
 * `last-week`, `last-month`, `last-year`, a day `YYYY-MM-DD`, or `YYYY-MM-DD:YYYY-MM-DD`
 * (both ends included). Counts here are live, so the named periods end today (UTC), where
 * npm's end yesterday.
 */
import { ProtocolError } from '@pkg/protocol';
import { addDays, daysBetween, isUtcDay, utcDay } from './utc-days.js';

/** npm serves at most 18 months per query. */
export const MAX_PERIOD_DAYS = 549;

const NAMED: Record<string, number> = { 'last-day': 1, 'last-week': 7, 'last-month': 30, 'last-year': 365 };

export interface DayRange {
  start: string;
  end: string;
}

export function parseDownloadPeriod(period: string, now: Date): DayRange {
  const today = utcDay(now);
  const named = NAMED[period];
  if (named !== undefined) return { start: addDays(today, -(named - 1)), end: today };
  const parts = period.split(':');
  const start = parts[0] ?? '';
  const end = parts[1] ?? start;
  if (parts.length > 2 || !isUtcDay(start) || !isUtcDay(end)) {
    throw new ProtocolError(
      'BAD_REQUEST',
      `Unknown period '${period.slice(0, 40)}': use last-day, last-week, last-month, last-year, YYYY-MM-DD or YYYY-MM-DD:YYYY-MM-DD`,
    );
  }
  if (end < start) throw new ProtocolError('BAD_REQUEST', `The period ${period} ends before it starts`);
  if (daysBetween(start, end) + 1 > MAX_PERIOD_DAYS) {
    throw new ProtocolError('BAD_REQUEST', `A period may span at most ${MAX_PERIOD_DAYS} days`);
  }
  return { start, end };
}

/** Every day of the range with its count, zero where nothing was downloaded. */
export function fillDays(range: DayRange, counts: readonly { day: string; downloads: number }[]) {
  const byDay = new Map(counts.map((c) => [c.day, c.downloads]));
  const days: { day: string; downloads: number }[] = [];
  for (let day = range.start; day <= range.end; day = addDays(day, 1)) days.push({ day, downloads: byDay.get(day) ?? 0 });
  return days;
}
