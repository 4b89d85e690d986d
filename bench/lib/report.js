// Aggregates the rounds of each (workload, target) and prints the one table.

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

/** Median req/s and latencies over the rounds; CPU per request over all of them; peak RSS. */
export function aggregate(runs) {
  const requests = runs.reduce((sum, r) => sum + r.requests, 0);
  const cpu = runs.reduce((sum, r) => sum + r.cpuSeconds, 0);
  return {
    rounds: runs.length,
    requests,
    rps: median(runs.map((r) => r.rps)),
    p50: median(runs.map((r) => r.p50)),
    p99: median(runs.map((r) => r.p99)),
    cpuPerRequestUs: requests > 0 ? (cpu / requests) * 1e6 : NaN,
    rssMiB: Math.max(...runs.map((r) => r.rssMiB)),
    peakRssMiB: Math.max(...runs.map((r) => r.peakRssMiB)),
    errors: runs.reduce((sum, r) => sum + r.socketErrors + r.badStatus, 0),
    firstError: runs.find((r) => r.firstError)?.firstError,
  };
}

/** Each target's share of the ceiling, per round (targets alternate, so load drift cancels). */
export function shareOfCeiling(targetRuns, ceilingRuns) {
  const shares = targetRuns.map((run, i) => (ceilingRuns[i] ? (100 * run.rps) / ceilingRuns[i].rps : NaN));
  return median(shares.filter(Number.isFinite));
}

function goalMet(workload, row) {
  if (!workload.goal) return '';
  if (workload.goal.rate !== undefined) return row.rps >= workload.goal.rate ? 'yes' : 'no';
  return row.share >= workload.goal.ceiling ? 'yes' : 'no';
}

function goalText(workload) {
  if (!workload.goal) return '';
  return workload.goal.rate !== undefined ? `≥ ${workload.goal.rate}/s` : `≥ ${workload.goal.ceiling} %`;
}

const fmt = (value, digits = 0) => (Number.isFinite(value) ? value.toFixed(digits) : '–');

/** Rows of the result table: one per (workload, target). */
export function tableRows(workloads, results, targetNames) {
  const rows = [];
  for (const workload of workloads) {
    const byTarget = results[workload.id];
    if (!byTarget) continue;
    for (const target of targetNames) {
      const runs = byTarget[target];
      if (!runs || runs.length === 0) continue;
      const row = aggregate(runs);
      row.share = target === 'ceiling' ? 100 : byTarget.ceiling ? shareOfCeiling(runs, byTarget.ceiling) : NaN;
      rows.push({
        workload: workload.id,
        label: workload.label,
        target,
        ...row,
        goal: target === 'ceiling' ? '' : goalText(workload),
        met: target.startsWith('ours') ? goalMet(workload, row) : '',
      });
    }
  }
  return rows;
}

export function formatTable(rows) {
  const header = [
    'workload',
    'target',
    'req/s',
    '% ceiling',
    'p50 ms',
    'p99 ms',
    'CPU µs/req',
    'RSS MiB',
    'errors',
    'goal',
    'met',
  ];
  const lines = rows.map((r) => [
    r.workload,
    r.target,
    fmt(r.rps),
    fmt(r.share, 1),
    fmt(r.p50, 2),
    fmt(r.p99, 2),
    fmt(r.cpuPerRequestUs),
    fmt(r.rssMiB),
    String(r.errors),
    r.goal,
    r.met,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i].length)));
  const row = (cells) => `| ${cells.map((c, i) => (i < 2 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join(' | ')} |`;
  return [
    row(header),
    `|${widths.map((w, i) => (i < 2 ? ':' : '-') + '-'.repeat(w) + (i < 2 ? '-' : ':')).join('|')}|`,
    ...lines.map(row),
  ].join('\n');
}
