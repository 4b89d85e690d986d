// Runs wrk (https://github.com/wg/wrk, the Debian package `wrk`) and reads its results as JSON,
// written by a Lua `done` hook so that nothing depends on wrk's text output.
import { execFile, execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';

/** Throws with install instructions when wrk is not on the PATH. */
export function checkWrk() {
  try {
    execFileSync('wrk', ['--version'], { stdio: 'ignore' });
  } catch (err) {
    // `wrk --version` prints its usage and exits 1: only a missing binary is a problem.
    if (err.code !== 'ENOENT') return;
    throw new Error(
      'wrk is not installed. Install it with `apt-get install wrk` (Debian/Ubuntu), `brew install wrk` (macOS) or from https://github.com/wg/wrk',
    );
  }
}

const luaString = (value) => `"${String(value).replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`;

/**
 * A Lua script for one workload: method, headers, and the request paths, taken in turn when
 * there are several (search queries, many packages). The `done` hook prints one JSON line.
 */
export function writeWrkScript(dir, name, { method = 'GET', headers = {}, paths }) {
  const lines = [`wrk.method = ${luaString(method)}`];
  for (const [key, value] of Object.entries(headers)) lines.push(`wrk.headers[${luaString(key)}] = ${luaString(value)}`);
  if (paths.length > 1) {
    lines.push(`local paths = {${paths.map(luaString).join(',\n')}}`);
    lines.push('local n = 0');
    lines.push('request = function()');
    lines.push('  n = n % #paths + 1');
    lines.push('  return wrk.format(nil, paths[n])');
    lines.push('end');
  }
  lines.push(`done = function(summary, latency, requests)
  io.write(string.format(
    'WRK_JSON {"requests":%d,"duration_us":%d,"bytes":%d,"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d,"p50":%d,"p90":%d,"p99":%d,"max":%d}\\n',
    summary.requests, summary.duration, summary.bytes, summary.errors.connect, summary.errors.read,
    summary.errors.write, summary.errors.status, summary.errors.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max))
end`);
  const file = path.join(dir, `${name}.lua`);
  writeFileSync(file, lines.join('\n') + '\n');
  return file;
}

/**
 * One wrk run against `baseUrl`: `connections` connections on `threads` threads for `seconds`.
 * Resolves with requests, req/s, latency percentiles (ms) and error counts.
 */
export function runWrk({ baseUrl, script, firstPath, seconds, connections, threads = 1 }) {
  const args = [
    `-t${threads}`,
    `-c${connections}`,
    `-d${seconds}s`,
    '--timeout',
    '10s',
    '-s',
    script,
    new URL(firstPath, baseUrl).toString(),
  ];
  return new Promise((resolve, reject) => {
    // Bounded even if wrk hangs: its own duration plus a margin.
    execFile('wrk', args, { timeout: (seconds + 30) * 1000, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      const line = stdout.split('\n').find((l) => l.startsWith('WRK_JSON '));
      if (!line) return reject(new Error(`wrk failed: ${err?.message ?? ''} ${stderr}`.trim()));
      const raw = JSON.parse(line.slice('WRK_JSON '.length));
      const elapsed = raw.duration_us / 1e6;
      resolve({
        requests: raw.requests,
        rps: raw.requests / elapsed,
        seconds: elapsed,
        p50: raw.p50 / 1000,
        p90: raw.p90 / 1000,
        p99: raw.p99 / 1000,
        max: raw.max / 1000,
        socketErrors: raw.connect + raw.read + raw.write + raw.timeout,
        badStatus: raw.status,
        bytes: raw.bytes,
      });
    });
  });
}
