#!/usr/bin/env node
// What the download recorder's score refresh costs the embedded default: on a copy of a seeded
// large registry's SQLite database, N packages get a download each, then their search rows are
// refreshed as the recorder does every `downloadScoreInterval` (the windows and scores changing),
// then once more (nothing changing), then every package as the daily refresh does. For each: the
// wall time, per package, and the longest the event loop was held (what a request waited at
// most). bench/README.md, "Large registry (issue 29)", Stop 39.
//
// Usage: node bench/score-refresh.js --data <dir of a seeded registry> [--names 24000]
//        [--server-dist <packages/server/dist of another build>]
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { corpusPackages } from './lib/corpus.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values: args } = parseArgs({
  options: {
    data: { type: 'string' },
    names: { type: 'string', default: '24000' },
    'server-dist': { type: 'string', default: path.join(repoRoot, 'packages/server/dist') },
  },
});
if (!args.data) throw new Error('--data <dir of a seeded registry> is required (bench/large-registry.js --data)');
const count = Number(args.names);
const dist = (file) => import(pathToFileURL(path.join(path.resolve(args['server-dist']), file)).href);
const { loadConfig } = await dist('config/config.js');
const { createStorage } = await dist('storage/create-storage.js');

const copy = await mkdtemp(path.join(tmpdir(), 'pkg-score-refresh-'));
try {
  for (const file of ['registry.db', 'registry.db-wal']) {
    await cp(path.join(args.data, file), path.join(copy, file)).catch((err) => {
      if (err.code !== 'ENOENT') throw err;
    });
  }
  const config = loadConfig({ flags: { data: copy, logLevel: 'silent' }, env: {} });
  const storage = await createStorage(config);
  try {
    const names = [];
    for (const spec of corpusPackages(count)) names.push(spec.name);
    const now = new Date();
    const day = now.toISOString().slice(0, 10);
    await storage.downloadCounts.add(names.map((name) => ({ tenant: '', name, version: '1.0.0', day, count: 1 })));
    // Every package of the registry: the search index's count of them.
    const registrySize = Math.max(1, (await storage.search.ranked('', 'updated', { size: 0, from: 0 })).total);
    const measure = async (label, run) => {
      const delay = monitorEventLoopDelay({ resolution: 1 });
      delay.enable();
      const started = performance.now();
      const changed = await run();
      const ms = performance.now() - started;
      delay.disable();
      const packages = label.startsWith('every') ? registrySize : names.length;
      console.log(
        `${label.padEnd(44)} ${ms.toFixed(0).padStart(7)} ms  ${((ms * 1000) / packages).toFixed(1).padStart(7)} µs/package` +
          `  longest hold ${(delay.max / 1e6).toFixed(1).padStart(6)} ms (p99 ${(delay.percentile(99) / 1e6).toFixed(1)} ms)  changed: ${changed}`,
      );
    };
    console.log(`score refresh of ${names.length} named packages (${path.basename(args.data)}), then every package`);
    await measure('named, windows change', () => storage.search.refreshScores('', names, now));
    await measure('named, nothing changes', () => storage.search.refreshScores('', names, now));
    await measure('every package (daily)', () => storage.search.refreshScores('', null, now));
    await measure('every package again (nothing changes)', () => storage.search.refreshScores('', null, now));
  } finally {
    await storage.close();
  }
} finally {
  await rm(copy, { recursive: true, force: true });
}
