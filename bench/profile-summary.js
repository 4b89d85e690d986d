#!/usr/bin/env node
// Summarises a V8 CPU profile (`node --cpu-prof`, or `npm run bench -- --profile`): the
// functions with the most self time, and the most inclusive time, as shares of all samples.
//
//   node bench/profile-summary.js <file.cpuprofile> [--top 40] [--filter <text>]
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { top: { type: 'string', default: '40' }, filter: { type: 'string' } },
});
if (positionals.length !== 1) {
  process.stderr.write('usage: node bench/profile-summary.js <file.cpuprofile> [--top 40] [--filter <text>]\n');
  process.exit(2);
}
const profile = JSON.parse(readFileSync(positionals[0], 'utf8'));
const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of profile.nodes) for (const child of n.children ?? []) parent.set(child, n.id);

const label = (n) => {
  const url = n.callFrame.url.replace(/^.*node_modules\//, '').replace(/^file:\/\/.*?\/packages\//, '');
  return `${n.callFrame.functionName || '(anonymous)'} ${url}${url ? `:${n.callFrame.lineNumber + 1}` : ''}`;
};

const timeOf = new Map();
let total = 0;
profile.samples.forEach((id, i) => {
  const dt = profile.timeDeltas[i] ?? 0;
  timeOf.set(id, (timeOf.get(id) ?? 0) + dt);
  total += dt;
});
const self = new Map();
const inclusive = new Map();
for (const [id, dt] of timeOf) {
  const name = label(nodes.get(id));
  self.set(name, (self.get(name) ?? 0) + dt);
  const seen = new Set();
  for (let cur = id; cur !== undefined; cur = parent.get(cur)) {
    const l = label(nodes.get(cur));
    if (seen.has(l)) continue;
    seen.add(l);
    inclusive.set(l, (inclusive.get(l) ?? 0) + dt);
  }
}
const top = (map) =>
  [...map]
    .filter(([name]) => !values.filter || name.includes(values.filter))
    .sort((a, b) => b[1] - a[1])
    .slice(0, Number(values.top))
    .map(([name, dt]) => `${((100 * dt) / total).toFixed(1).padStart(5)} %  ${name}`)
    .join('\n');
process.stdout.write(`${(total / 1e6).toFixed(1)} s sampled\n\nself time\n${top(self)}\n\ninclusive time\n${top(inclusive)}\n`);
