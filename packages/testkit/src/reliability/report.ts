import type { ScenarioResult } from './results.js';

/** The results as a plain-text table, then each failure's problems. */
export function formatTable(results: ScenarioResult[]): string {
  const header = ['scenario', 'profile', 'result', 'requests', 'time', 'measured'];
  const rows = results.map((r) => [
    r.scenario,
    r.profile,
    r.passed ? 'pass' : 'FAIL',
    String(r.requests),
    r.seconds >= 100 ? `${Math.round(r.seconds)} s` : `${r.seconds.toFixed(1)} s`,
    r.facts.join('; '),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  const out = [line(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.map(line)];
  for (const r of results.filter((x) => !x.passed)) {
    out.push('', `FAIL ${r.scenario} (${r.profile}):`, ...r.problems.map((p) => `  - ${p}`));
  }
  return out.join('\n');
}
