/** What an administrator keeps of each package's pre-releases; each rule is optional. */
export interface RetentionRules {
  /** Keep the newest N pre-releases (by version precedence) of each package. */
  keepPrereleases?: number | undefined;
  /** Drop pre-releases published more than this many days ago. */
  prereleaseMaxAgeDays?: number | undefined;
}

/** The `retention` setting: the rules, and how often the server applies them. */
export interface RetentionSchedule extends RetentionRules {
  /** Hours between two runs; the first runs once the server listens. */
  everyHours: number;
}

const KEYS = new Set(['keepPrereleases', 'prereleaseMaxAgeDays', 'everyHours']);

/** Reads `{"keepPrereleases": 5, "prereleaseMaxAgeDays": 90, "everyHours": 24}` (an object or its JSON text). */
export function parseRetentionSchedule(value: unknown): RetentionSchedule {
  let parsed = value;
  if (typeof value === 'string') {
    try {
      parsed = JSON.parse(value);
    } catch (err) {
      throw new Error(`must be JSON: ${(err as Error).message}`);
    }
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new Error('must be a JSON object like {"keepPrereleases": 5, "prereleaseMaxAgeDays": 90, "everyHours": 24}');
  }
  const fields = parsed as Record<string, unknown>;
  for (const key of Object.keys(fields)) if (!KEYS.has(key)) throw new Error(`has an unknown field '${key}'`);
  const whole = (key: string, min: number): number | undefined => {
    const v = fields[key];
    if (v === undefined) return undefined;
    if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < min)
      throw new Error(`field '${key}' must be a whole number of at least ${min}`);
    return v;
  };
  const rules = { keepPrereleases: whole('keepPrereleases', 0), prereleaseMaxAgeDays: whole('prereleaseMaxAgeDays', 1) };
  if (rules.keepPrereleases === undefined && rules.prereleaseMaxAgeDays === undefined) {
    throw new Error("needs 'keepPrereleases' or 'prereleaseMaxAgeDays'");
  }
  return { ...rules, everyHours: whole('everyHours', 1) ?? 24 };
}
