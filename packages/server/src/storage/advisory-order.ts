import type { AdvisoryRecord } from './ports.js';

/** Advisories oldest first, as every driver lists them. */
export function sorted(records: AdvisoryRecord[]): AdvisoryRecord[] {
  return records.sort((a, b) => (a.publishedAt < b.publishedAt ? -1 : a.publishedAt > b.publishedAt ? 1 : a.id < b.id ? -1 : 1));
}

/** Advisories grouped by package, each group oldest first. */
export function byName(records: AdvisoryRecord[]): Map<string, AdvisoryRecord[]> {
  const map = new Map<string, AdvisoryRecord[]>();
  for (const record of sorted(records)) map.set(record.name, [...(map.get(record.name) ?? []), record]);
  return map;
}
