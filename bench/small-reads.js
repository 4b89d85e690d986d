#!/usr/bin/env node
// The ways to read a small file whole, compared by the process's CPU time per read (the thread
// pool's included) over files the page cache holds: what a tarball cache miss costs with each
// (bench/README.md, "Large registry (issue 29)", Stop 35). Usage: node bench/small-reads.js [rounds]
import fs from 'node:fs';
import { open as openHandle, readFile as readFilePromise } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { randomBytes } from 'node:crypto';

const FILES = 20_000;
const READS = 4_000;
const CONCURRENCY = 8;
const FIRST_READ = 64 * 1024;
const rounds = Math.max(1, Number(process.argv[2] ?? 5) || 5);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pkg-small-reads-'));

const callback = (fn, ...args) =>
  new Promise((resolve, reject) => fn(...args, (err, value) => (err ? reject(err) : resolve(value))));

const methods = {
  /** What FsBlobStore did on a miss: open, fstat, read through a FileHandle, then its close. */
  'open, fstat, read, close (FileHandle)': async (file) => {
    const handle = await openHandle(file, 'r');
    const { size } = await handle.stat();
    const bytes = Buffer.allocUnsafe(size);
    await handle.read(bytes, 0, size, 0);
    await handle.close();
    return bytes;
  },
  'fs.promises.readFile': (file) => readFilePromise(file),
  'fs.readFile (callback)': (file) => callback(fs.readFile, file),
  /** What FsBlobStore.readSmall does: a short read is the whole file; the close is synchronous. */
  'open, read, closeSync (callback)': async (file) => {
    const fd = await callback(fs.open, file, 'r');
    try {
      const first = Buffer.allocUnsafe(FIRST_READ);
      const got = await callback(fs.read, fd, first, 0, first.length, 0);
      const bytes = Buffer.allocUnsafeSlow(got);
      first.copy(bytes, 0, 0, got);
      return bytes;
    } finally {
      fs.closeSync(fd);
    }
  },
  /** Blocks the event loop for the whole read: microseconds here, a disk's latency on a miss. */
  'openSync, readSync, closeSync': async (file) => {
    const fd = fs.openSync(file, 'r');
    try {
      const first = Buffer.allocUnsafe(FIRST_READ);
      const got = fs.readSync(fd, first, 0, first.length, 0);
      return Buffer.from(first.subarray(0, got));
    } finally {
      fs.closeSync(fd);
    }
  },
};

try {
  // 4 KiB to 8 KiB, as the large registry's tarballs.
  const files = Array.from({ length: FILES }, (_, i) => path.join(dir, `f${i}.tgz`));
  files.forEach((file, i) => fs.writeFileSync(file, randomBytes(4096 + (i % 4096))));
  for (const file of files) fs.readFileSync(file);
  const results = {};
  for (let round = 0; round < rounds; round++) {
    const names = Object.keys(methods);
    if (round % 2 === 1) names.reverse();
    for (const name of names) {
      const picks = Array.from({ length: READS }, () => files[Math.floor(Math.random() * FILES)]);
      const cpu0 = process.cpuUsage();
      const t0 = performance.now();
      let next = 0;
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async () => {
          while (next < picks.length) await methods[name](picks[next++]);
        }),
      );
      const cpu = process.cpuUsage(cpu0);
      (results[name] ??= []).push({ cpuUs: (cpu.user + cpu.system) / READS, wallUs: ((performance.now() - t0) * 1000) / READS });
    }
  }
  const median = (list) => [...list].sort((a, b) => a - b)[list.length >> 1];
  console.log(
    `${new Date().toISOString()} · load average ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')} · ${rounds} rounds of ${READS} reads, ${CONCURRENCY} at a time`,
  );
  console.log('| read | CPU µs/read (median) | per round | wall µs/read (median) |');
  console.log('|:--|--:|:--|--:|');
  for (const [name, runs] of Object.entries(results)) {
    const cpu = runs.map((r) => r.cpuUs);
    console.log(
      `| ${name} | ${median(cpu).toFixed(1)} | ${cpu.map((x) => x.toFixed(0)).join(' ')} | ${median(runs.map((r) => r.wallUs)).toFixed(1)} |`,
    );
  }
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
