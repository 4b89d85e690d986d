// The large-package scenario: one publish of a game-sized, incompressible package, then 8
// concurrent downloads of its tarball, against a fresh server of each target, with the server's
// peak resident memory above its idle level and the throughput over loopback. See
// bench/README.md, "Large package".
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { memoryMiB, settle } from './process-stats.js';
import { login } from './seed.js';
import { repoRoot, startOurs, startVerdaccio } from './targets.js';
import { prepareScaleOut } from './scale-out.js';

// The streaming helpers the tests use too (the built test kit: `npm run bench` builds first).
const kit = () => import(path.join(repoRoot, 'packages/testkit/dist/large-package.js'));

const MiB = 1024 * 1024;
export const LARGE_PACKAGE_NAME = 'com.bench.large-assets';
const DOWNLOADS = 8;

/** Resets the process's peak RSS (VmHWM) to its current RSS; false where Linux does not allow it. */
function resetPeak(pid) {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

/**
 * Runs `work` while sampling the process's RSS every 50 ms; the peak is the larger of the
 * samples and VmHWM (reset just before), both in MiB.
 */
async function withPeak(pid, work) {
  const exact = resetPeak(pid);
  let sampled = memoryMiB(pid).rss;
  let running = true;
  const sampler = (async () => {
    while (running) {
      sampled = Math.max(sampled, memoryMiB(pid).rss);
      await sleep(50);
    }
  })();
  const started = performance.now();
  try {
    const result = await work();
    return { result, seconds: (performance.now() - started) / 1000, peak: Math.max(sampled, exact ? memoryMiB(pid).peak : 0) };
  } finally {
    running = false;
    await sampler;
  }
}

/** The S3 test server the test kit uses (s3rver in a child process), with one bucket. */
async function startS3TestServer(workDir) {
  const directory = mkdtempSync(path.join(workDir, 's3-'));
  const bucket = `bench-${randomBytes(4).toString('hex')}`;
  const child = spawn(
    process.execPath,
    ['--openssl-legacy-provider', path.join(repoRoot, 'packages/testkit/bin/s3-server.mjs'), directory, bucket],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const port = await new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout });
    lines.once('line', (line) => {
      lines.close();
      resolve(JSON.parse(line).port);
    });
    child.once('exit', (code) => reject(new Error(`the S3 test server exited (${code})`)));
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  return {
    url: `s3://${bucket}?endpoint=${encodeURIComponent(`http://127.0.0.1:${port}`)}&region=us-east-1`,
    env: {
      AWS_ACCESS_KEY_ID: 'S3RVER',
      AWS_SECRET_ACCESS_KEY: 'S3RVER',
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    },
    async close() {
      child.stdin.end();
      await exited;
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

/** Publish, then downloads, against one fresh server; a failure is recorded, not thrown. */
async function measureTarget(target, tarball, log) {
  const { publishTarballFile, downloadDigest } = await kit();
  const pid = target.pids[0];
  await settle(pid);
  const token = await login(target.url);
  await settle(pid);
  const idle = memoryMiB(pid).rss;
  const out = { target: target.name, idleMiB: idle };
  try {
    await publishThenDownload(target, tarball, token, out, { publishTarballFile, downloadDigest });
  } finally {
    const phases = [
      out.publish ? `publish ${fmt(out.publish)}` : '',
      out.downloads ? `${DOWNLOADS} downloads ${fmt(out.downloads)}` : '',
    ];
    log(`  ${target.name.padEnd(16)} ${phases.filter(Boolean).join('; ')}`);
  }
  return out;
}

async function publishThenDownload(target, tarball, token, out, { publishTarballFile, downloadDigest }) {
  const pid = target.pids[0];
  const idle = out.idleMiB;
  try {
    const publish = await withPeak(pid, () => publishTarballFile(target.url, token, LARGE_PACKAGE_NAME, '1.0.0', tarball));
    out.publish = {
      status: publish.result.status,
      seconds: publish.seconds,
      mbPerSecond: tarball.size / 1e6 / publish.seconds,
      peakAboveIdleMiB: publish.peak - idle,
    };
    if (publish.result.status !== 201) {
      out.publish.error = `HTTP ${publish.result.status} ${JSON.stringify(publish.result.body).slice(0, 200)}`;
      return;
    }
  } catch (err) {
    out.publish = { error: err.message };
    return;
  }
  await settle(pid);
  const idleBeforeDownloads = memoryMiB(pid).rss;
  const url = `${target.url}/${LARGE_PACKAGE_NAME}/-/${LARGE_PACKAGE_NAME}-1.0.0.tgz`;
  try {
    // Timed downloads only count bytes (8 sha512s would bound the figure on the load generator's
    // side); one more download, untimed, checks the bytes.
    const downloads = await withPeak(pid, () =>
      Promise.all(Array.from({ length: DOWNLOADS }, () => downloadDigest(url, {}, { hash: false }))),
    );
    const checked = await downloadDigest(url);
    const intact =
      downloads.result.every((d) => d.status === 200 && d.length === tarball.size) && checked.integrity === tarball.integrity;
    out.downloads = {
      count: DOWNLOADS,
      intact,
      seconds: downloads.seconds,
      mbPerSecond: (DOWNLOADS * tarball.size) / 1e6 / downloads.seconds,
      peakAboveIdleMiB: downloads.peak - idleBeforeDownloads,
    };
  } catch (err) {
    out.downloads = { error: err.message };
  }
}

function fmt(phase) {
  if (phase.error) return `failed (${phase.error})`;
  return `${phase.mbPerSecond.toFixed(0)} MB/s, peak RSS idle + ${phase.peakAboveIdleMiB.toFixed(0)} MiB${phase.intact === false ? ' (bytes differ!)' : ''}`;
}

/**
 * The scenario on every target: our embedded default, our scale-out profile (PostgreSQL, Redis
 * and the S3 test server; skipped with a note when PostgreSQL cannot be reached) and, with
 * `withVerdaccio`, Verdaccio 6.8.0 (`verdaccioBin`).
 */
export async function runLargePackage({ sizeMiB, workDir, args, withVerdaccio, verdaccioBin, scaleOut = true, log }) {
  const { writeLargeTarball } = await kit();
  const dir = path.join(workDir, 'large-package');
  mkdirSync(dir, { recursive: true });
  log(`\nlarge-package: writing a package with ${sizeMiB} MiB of incompressible data…`);
  const tarball = await writeLargeTarball(
    path.join(dir, 'package.tgz'),
    { name: LARGE_PACKAGE_NAME, version: '1.0.0', description: 'bench: a game-sized package' },
    sizeMiB * MiB,
  );
  log(
    `  tarball ${(tarball.size / MiB).toFixed(0)} MiB; publish body ${((Math.ceil(tarball.size / 3) * 4) / MiB).toFixed(0)} MiB`,
  );
  const results = [];

  const embedded = await startOurs({ name: 'ours-embedded', dataDir: path.join(dir, 'embedded'), workDir: dir });
  try {
    results.push(await measureTarget(embedded, tarball, log));
  } finally {
    await embedded.stop();
  }

  if (scaleOut) {
    let s3;
    let backing;
    try {
      s3 = await startS3TestServer(dir);
      backing = await prepareScaleOut({ args: { ...args, storage: s3.url }, workDir: dir, log });
      const ours = await startOurs({
        name: 'ours-scale-out',
        dataDir: path.join(dir, 'scale-out'),
        workDir: dir,
        storageFlags: backing.flags,
        env: s3.env,
      });
      try {
        results.push(await measureTarget(ours, tarball, log));
      } finally {
        await ours.stop();
      }
    } catch (err) {
      log(`  scale-out skipped: ${err.message}`);
      results.push({ target: 'ours-scale-out', skipped: err.message });
    } finally {
      await backing?.cleanup().catch(() => undefined);
      await s3?.close();
    }
  }

  if (withVerdaccio) {
    // Verdaccio reads a publish body whole: its limit must fit the base64 of the tarball.
    const verdaccio = await startVerdaccio({
      bin: verdaccioBin,
      workDir: dir,
      maxBodySize: `${Math.ceil((tarball.size * 4) / 3 / MiB) + 16}mb`,
    });
    try {
      results.push(await measureTarget(verdaccio, tarball, log));
    } finally {
      await verdaccio.stop();
    }
  }
  rmSync(tarball.path, { force: true });
  return { sizeMiB, tarballBytes: tarball.size, downloads: DOWNLOADS, results };
}

/** The scenario's rows, as the bench's table prints them. */
export function formatLargePackage(report) {
  const lines = [
    `large package: ${report.sizeMiB} MiB incompressible (tarball ${(report.tarballBytes / MiB).toFixed(0)} MiB), then ${report.downloads} concurrent downloads`,
    '| target | publish MB/s | publish peak RSS above idle | downloads MB/s (together) | downloads peak RSS above idle |',
    '|---|--:|--:|--:|--:|',
  ];
  const cell = (phase, key, unit) =>
    !phase ? '–' : phase.error ? `failed: ${phase.error.slice(0, 60)}` : `${phase[key].toFixed(0)}${unit}`;
  for (const r of report.results) {
    if (r.skipped) {
      lines.push(`| ${r.target} | skipped: ${r.skipped.slice(0, 60)} | | | |`);
      continue;
    }
    lines.push(
      `| ${r.target} | ${cell(r.publish, 'mbPerSecond', '')} | ${cell(r.publish, 'peakAboveIdleMiB', ' MiB')} | ${cell(r.downloads, 'mbPerSecond', '')} | ${cell(r.downloads, 'peakAboveIdleMiB', ' MiB')} |`,
    );
  }
  return lines.join('\n');
}
