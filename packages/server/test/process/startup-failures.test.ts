import { spawn } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REGISTRY_BIN, makeTestCertificates, registryChildEnv, runRegistryCli, spawnRegistry, type CliRun } from '@pkg/testkit';

// Spawns the built binary: run `npm run build` first.

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'startup-failures-'));
  // The unprivileged runs below must reach into it.
  await chmod(dir, 0o755);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/**
 * `serve` as a user without privileges: as root, permissions do not stop a write, so the child
 * drops to nobody (65534), as a service manager would start it under its own user.
 */
function runUnprivileged(args: string[]): Promise<CliRun> {
  const drop = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {};
  const child = spawn(process.execPath, [REGISTRY_BIN, 'serve', ...args], { env: registryChildEnv(), ...drop });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

/** A start-up that must stop with exit 2, the setting and the path named, a hint, no stack. */
function expectRefused(run: CliRun, message: string | RegExp): void {
  expect(run.code).toBe(2);
  if (typeof message === 'string') expect(run.stderr).toContain(`Error: ${message}`);
  else expect(run.stderr).toMatch(message);
  expect(run.stderr).toMatch(/\nHint: \S/);
  expect(run.stderr).not.toMatch(/\n\s+at /);
  expect(run.stdout).not.toContain('listening');
}

async function entries(directory: string): Promise<string[]> {
  return (await readdir(directory)).sort();
}

describe('pkg-registry serve: a start-up failure names the setting and the path, exits 2 with a hint, creates nothing', () => {
  it('a data directory that is a file', async () => {
    const file = path.join(dir, 'a-file');
    await writeFile(file, 'not a directory');
    expectRefused(await runRegistryCli(['serve', '--data', file]), `setting 'data': ${file} is not a directory`);
    expectRefused(
      await runRegistryCli(['serve', '--data', path.join(file, 'below')]),
      `setting 'data': ${file} is not a directory`,
    );
  });

  it('a data directory the user may not write, or may not create', async () => {
    const locked = path.join(dir, 'locked');
    await mkdir(locked, { mode: 0o555 });
    await chmod(locked, 0o555);
    expectRefused(
      await runUnprivileged(['--data', locked]),
      `setting 'data': the directory ${locked} is not writable by this user`,
    );
    expectRefused(
      await runUnprivileged(['--data', path.join(locked, 'new', 'data')]),
      `setting 'data': cannot create ${path.join(locked, 'new', 'data')}: ${locked} is not writable by this user`,
    );
    expect(await entries(locked)).toEqual([]);
  });

  it('a tarball directory given by --storage that the user may not write', async () => {
    const data = path.join(dir, 'storage-data');
    await mkdir(data, { mode: 0o777 });
    await chmod(data, 0o777);
    const locked = path.join(dir, 'locked-tarballs');
    await mkdir(locked, { mode: 0o555 });
    await chmod(locked, 0o555);
    expectRefused(
      await runUnprivileged(['--data', data, '--storage', locked]),
      `setting 'storage': the directory ${locked} is not writable by this user`,
    );
    expect(await entries(data)).toEqual([]);
  });

  it('a read-only database file', async () => {
    const data = path.join(dir, 'readonly-db');
    await mkdir(data, { mode: 0o777 });
    await chmod(data, 0o777);
    const file = path.join(data, 'registry.db');
    new Database(file).close();
    await chmod(file, 0o444);
    expectRefused(await runUnprivileged(['--data', data]), `setting 'data': the database ${file} is read-only for this user`);
    expect(await entries(data)).toEqual(['registry.db']);
  });

  it('a database file that is not a database', async () => {
    const data = path.join(dir, 'not-a-db');
    await mkdir(data);
    const file = path.join(data, 'other.db');
    await writeFile(file, 'this is a text file, long enough to be read as a database header by SQLite. '.repeat(10));
    const run = await runRegistryCli(['serve', '--data', data, '--database', `sqlite:${file}`]);
    expectRefused(run, `setting 'database': ${file} is not a SQLite database or is damaged`);
    expect(run.stderr).toContain('pkg-registry restore');
    expect(await entries(data)).toEqual(['other.db']);
  });

  it('a certificate file the user may not read', async () => {
    const certs = await makeTestCertificates(await mkdtemp(path.join(dir, 'certs-')));
    await chmod(path.dirname(certs.cert), 0o755);
    await chmod(certs.cert, 0o600);
    await chmod(certs.key, 0o644);
    const data = path.join(dir, 'tls-unreadable');
    expectRefused(
      await runUnprivileged(['--data', data, '--tls-cert', certs.cert, '--tls-key', certs.key]),
      `setting 'tlsCert': cannot read ${certs.cert}: EACCES`,
    );
    expect(existsSync(data)).toBe(false);
  });

  it('a private key given as the certificate', async () => {
    const certs = await makeTestCertificates(await mkdtemp(path.join(dir, 'certs-')));
    const data = path.join(dir, 'tls-swapped');
    expectRefused(
      await runRegistryCli(['serve', '--data', data, '--tls-cert', certs.key, '--tls-key', certs.key]),
      `setting 'tlsCert': ${certs.key} does not hold a certificate (it holds a private key)`,
    );
    expect(existsSync(data)).toBe(false);
  });

  it('a port in use leaves no data directory behind', async () => {
    const holder = net.createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const port = (holder.address() as net.AddressInfo).port;
    const data = path.join(dir, 'port-in-use', 'data');
    try {
      expectRefused(
        await runRegistryCli(['serve', '--data', data, '--port', String(port)]),
        `setting 'port': 127.0.0.1:${port} is already in use`,
      );
    } finally {
      holder.close();
    }
    expect(existsSync(path.join(dir, 'port-in-use'))).toBe(false);
  });
});

describe('pkg-registry serve: upgrades', () => {
  it('logs each migration as it runs, and none on the next start', async () => {
    const data = await mkdtemp(path.join(dir, 'migrations-'));
    const first = await spawnRegistry({ dataDir: data });
    const applied = first.logEntries().filter((e) => e.msg?.startsWith('applying database migration'));
    expect(await first.stop()).toEqual({ code: 0, signal: null });
    expect(applied.map((e) => `${e.scope} ${e.migration}`)).toContain('core 1');
    expect(applied.every((e) => e.level === 30 && e.migration <= e.of)).toBe(true);
    const again = await spawnRegistry({ dataDir: data });
    expect(again.logEntries().filter((e) => e.msg?.startsWith('applying database migration'))).toEqual([]);
    expect(await again.stop()).toEqual({ code: 0, signal: null });
  });

  it('a binary older than the data refuses to start and names the release the data needs', async () => {
    const data = await mkdtemp(path.join(dir, 'newer-'));
    const server = await spawnRegistry({ dataDir: data });
    expect(await server.stop()).toEqual({ code: 0, signal: null });
    // What a later release leaves: one more core migration, recorded with its release.
    const db = new Database(path.join(data, 'registry.db'));
    const { n } = db.prepare("SELECT count(*) AS n FROM schema_migrations WHERE scope = 'core'").get() as { n: number };
    db.prepare("INSERT INTO schema_migrations (scope, version) VALUES ('core', ?)").run(n);
    db.prepare("INSERT INTO schema_releases (scope, version, release, applied_at) VALUES ('core', ?, '99.1.0', '')").run(n);
    db.close();
    const run = await runRegistryCli(['serve', '--data', data, '--port', '0']);
    expectRefused(
      run,
      `the database ${path.join(data, 'registry.db')} was upgraded by pkg-registry 99.1.0 (schema core ${n + 1})`,
    );
    expect(run.stderr).toContain(`knows core up to ${n}`);
    expect(run.stderr).toContain('Hint: install pkg-registry 99.1.0 or newer');
  });
});
