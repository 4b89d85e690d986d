#!/usr/bin/env node
// Runs the whole test suite. PostgreSQL and Redis suites run when those services answer;
// on a developer machine without them they are skipped and this script says so. Under CI
// (CI=true) a missing service is a failure, never a skip.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

const services = [
  {
    name: 'PostgreSQL',
    env: 'PKG_TEST_POSTGRES',
    url: process.env.PKG_TEST_POSTGRES ?? 'postgres://postgres@127.0.0.1:5432/test',
    host: '127.0.0.1',
    port: 5432,
  },
  {
    name: 'Redis',
    env: 'PKG_TEST_REDIS',
    url: process.env.PKG_TEST_REDIS ?? 'redis://127.0.0.1:6379',
    host: '127.0.0.1',
    port: 6379,
  },
];

function reachable(host, port) {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port, timeout: 2000 });
    socket.once('connect', () => {
      socket.destroy();
      resolve(null);
    });
    socket.once('timeout', () => {
      socket.destroy();
      resolve('timed out');
    });
    socket.once('error', (err) => resolve(err.code ?? err.message));
  });
}

const env = { ...process.env };
const missing = [];
for (const service of services) {
  const problem = await reachable(service.host, service.port);
  if (problem === null) env[service.env] = service.url;
  else {
    delete env[service.env];
    missing.push(`${service.name} at ${service.host}:${service.port} (${problem})`);
  }
}
if (missing.length > 0) {
  if (process.env.CI) {
    console.error(`CI requires these services, which are not reachable: ${missing.join('; ')}`);
    process.exit(1);
  }
  console.warn(`Skipping the suites that need: ${missing.join('; ')}. Start them to run everything.`);
}

// A JSON report beside the normal output gives one plain closing line that any CI can read.
const reportDir = mkdtempSync(path.join(tmpdir(), 'pkg-test-report-'));
const reportFile = path.join(reportDir, 'report.json');
const child = spawn(
  process.execPath,
  [
    'node_modules/vitest/vitest.mjs',
    'run',
    '--reporter=default',
    '--reporter=json',
    `--outputFile.json=${reportFile}`,
    ...process.argv.slice(2),
  ],
  { env, stdio: 'inherit' },
);
child.on('exit', (code, signal) => {
  if (missing.length > 0) console.warn(`Skipped suites needing: ${missing.join('; ')}`);
  try {
    const report = JSON.parse(readFileSync(reportFile, 'utf8'));
    const skipped = report.numPendingTests + report.numTodoTests;
    console.log(`Tests: ${report.numPassedTests} passed, ${report.numFailedTests} failed, ${skipped} skipped`);
  } catch {
    // no report (vitest crashed before writing one): the exit code speaks
  }
  rmSync(reportDir, { recursive: true, force: true });
  process.exit(code ?? (signal ? 1 : 0));
});
