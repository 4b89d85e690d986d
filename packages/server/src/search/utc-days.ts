/** Calendar days in UTC as `YYYY-MM-DD`, the unit of download counts. */

const DAY_MS = 86_400_000;
const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

export function utcDay(date: Date): string {
  return date.toISOString().slice(0, 10);
}

/** The day `days` after `day` (negative: before). */
export function addDays(day: string, days: number): string {
  return utcDay(new Date(Date.parse(`${day}T00:00:00Z`) + days * DAY_MS));
}

/** Whole days from `start` to `end` (0 when equal). */
export function daysBetween(start: string, end: string): number {
  return Math.round((Date.parse(`${end}T00:00:00Z`) - Date.parse(`${start}T00:00:00Z`)) / DAY_MS);
}

/** True for a real calendar day written `YYYY-MM-DD` (not 2024-02-30). */
export function isUtcDay(value: string): boolean {
  const match = DAY.exec(value);
  if (!match) return false;
  const ms = Date.parse(`${value}T00:00:00Z`);
  return Number.isFinite(ms) && utcDay(new Date(ms)) === value;
}
