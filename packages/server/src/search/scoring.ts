import type { ScoreDetail, Scores } from './search-types.js';

export type { ScoreDetail, Scores };

/**
 * The package scores search returns (`score.detail`, `score.final`), every value in [0, 1].
 * The formulas are documented in docs/search.md; change both together.
 */

const DAY_MS = 86_400_000;

/** Weights of `score.final`; they sum to 1. */
export const FINAL_WEIGHTS = { quality: 0.3, popularity: 0.35, maintenance: 0.35 } as const;

/** Half-life of the recency part of maintenance, in days. */
export const RECENCY_HALF_LIFE_DAYS = 180;
/** Releases in the last 365 days that count as a full release cadence. */
export const CADENCE_FULL_RELEASES = 6;

export interface QualityInputs {
  name: string;
  description: string;
  readme: string;
  license: boolean;
  keywords: number;
  repository: boolean;
}

/**
 * Metadata completeness: description 0.25, readme 0.25, license 0.2, keywords 0.15,
 * repository 0.15. A short description (under 20 characters, or just the name) and a short
 * readme (under 200 characters) count half; keywords count fully from three on.
 */
export function qualityScore(inputs: QualityInputs): number {
  const description = inputs.description.trim();
  const descriptionPart =
    description.length === 0 ? 0 : description.length < 20 || description.toLowerCase() === inputs.name ? 0.5 : 1;
  const readme = inputs.readme.trim();
  const readmePart = readme.length === 0 ? 0 : readme.length < 200 ? 0.5 : 1;
  return round(
    0.25 * descriptionPart +
      0.25 * readmePart +
      0.2 * (inputs.license ? 1 : 0) +
      0.15 * Math.min(1, inputs.keywords / 3) +
      0.15 * (inputs.repository ? 1 : 0),
  );
}

/**
 * Recency and cadence of releases: 0.6 × 0.5^(days since the last release / 180)
 * + 0.4 × min(1, releases in the last 365 days / 6). A deprecated package scores 0.
 */
export function maintenanceScore(releaseTimes: readonly number[], deprecated: boolean, now: Date): number {
  if (deprecated || releaseTimes.length === 0) return 0;
  const nowMs = now.getTime();
  const last = Math.max(...releaseTimes);
  const ageDays = Math.max(0, (nowMs - last) / DAY_MS);
  const recency = Math.pow(0.5, ageDays / RECENCY_HALF_LIFE_DAYS);
  const yearAgo = nowMs - 365 * DAY_MS;
  const recent = releaseTimes.filter((t) => t > yearAgo && t <= nowMs + DAY_MS).length;
  const cadence = Math.min(1, recent / CADENCE_FULL_RELEASES);
  return round(0.6 * recency + 0.4 * cadence);
}

/**
 * Downloads in the last 30 days, log-scaled against the most downloaded package of the same
 * registry: ln(1 + monthly) / ln(1 + max monthly). 0 when nothing was downloaded.
 */
export function popularityScore(monthly: number, maxMonthly: number): number {
  if (monthly <= 0 || maxMonthly <= 0) return 0;
  return round(Math.min(1, Math.log1p(monthly) / Math.log1p(Math.max(monthly, maxMonthly))));
}

export function finalScore(detail: ScoreDetail): number {
  return round(
    FINAL_WEIGHTS.quality * detail.quality +
      FINAL_WEIGHTS.popularity * detail.popularity +
      FINAL_WEIGHTS.maintenance * detail.maintenance,
  );
}

export interface ScoreInputs {
  quality: number;
  releaseTimes: readonly number[];
  deprecated: boolean;
  monthlyDownloads: number;
  maxMonthlyDownloads: number;
}

/**
 * The scores of a package as it is written: its derived search fields, the monthly downloads it has so
 * far, and the registry's largest monthly count (which this package may now hold).
 */
export function scoreWrittenPackage(
  fields: { quality: number; releaseTimes: readonly number[]; deprecated?: string },
  monthlyDownloads: number,
  registryMax: number,
  now: Date,
): Scores {
  return scorePackage(
    {
      quality: fields.quality,
      releaseTimes: fields.releaseTimes,
      deprecated: fields.deprecated !== undefined,
      monthlyDownloads,
      maxMonthlyDownloads: Math.max(registryMax, monthlyDownloads),
    },
    now,
  );
}

export function scorePackage(inputs: ScoreInputs, now: Date): Scores {
  const detail = {
    quality: inputs.quality,
    popularity: popularityScore(inputs.monthlyDownloads, inputs.maxMonthlyDownloads),
    maintenance: maintenanceScore(inputs.releaseTimes, inputs.deprecated, now),
  };
  return { final: finalScore(detail), detail };
}

/** Six decimals: stable when stored and compared, finer than any ranking needs. */
function round(value: number): number {
  return Math.round(Math.min(1, Math.max(0, value)) * 1e6) / 1e6;
}
