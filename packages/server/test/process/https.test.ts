import { existsSync } from 'node:fs';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import https from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  makeTestCertificates,
  request,
  runRegistryCli,
  spawnRegistry,
  startRegistry,
  type TestCertificates,
  type TestRegistry,
} from '@pkg/testkit';
import type { UntypedJson } from '@pkg/testkit';

const execFileAsync = promisify(execFile);

let dir: string;
let certs: TestCertificates;
let ca: Buffer;
let registry: TestRegistry;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'https-test-'));
  certs = await makeTestCertificates(dir);
  ca = await readFile(certs.caCert);
  registry = await startRegistry({ settings: { tlsCert: certs.cert, tlsKey: certs.key } });
});
afterAll(async () => {
  await registry?.close();
  await rm(dir, { recursive: true, force: true });
});

/** One HTTPS request with a client that trusts only the given CA (or the system's). */
function httpsJson(
  url: string,
  init: { ca?: Buffer; method?: string; body?: unknown; token?: string } = {},
): Promise<{ status: number; body: UntypedJson }> {
  return new Promise((resolve, reject) => {
    const payload = init.body === undefined ? undefined : JSON.stringify(init.body);
    const req = https.request(
      url,
      {
        method: init.method ?? 'GET',
        ...(init.ca ? { ca: init.ca } : {}),
        headers: {
          ...(payload ? { 'content-type': 'application/json' } : {}),
          ...(init.token ? { authorization: `Bearer ${init.token}` } : {}),
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : undefined }));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/** npm with a config and cache of its own, and none of the npm_* variables of the runner. */
async function npm(args: string[], userconfig: string) {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) if (!/^npm_/i.test(name)) env[name] = value;
  try {
    const { stdout, stderr } = await execFileAsync(
      'npm',
      [...args, '--userconfig', userconfig, '--cache', path.join(dir, 'npm-cache'), '--fetch-retries', '0'],
      { env, cwd: dir },
    );
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe('HTTPS with --tls-cert/--tls-key', () => {
  it('serves the registry over TLS to a client that trusts the CA', async () => {
    expect(registry.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const ping = await httpsJson(`${registry.url}/-/ping`, { ca });
    expect(ping).toEqual({ status: 200, body: {} });

    const login = await httpsJson(`${registry.url}/-/user/org.couchdb.user:tls-user`, {
      ca,
      method: 'PUT',
      body: { name: 'tls-user', password: 'tls-password', email: 'tls@example.com' },
    });
    expect(login.status).toBe(201);
    const who = await httpsJson(`${registry.url}/-/whoami`, { ca, token: login.body.token });
    expect(who.body).toEqual({ username: 'tls-user', email: 'tls@example.com', registry: `${registry.url}/` });
  });

  it('is refused by a client that does not trust the CA', async () => {
    await expect(httpsJson(`${registry.url}/-/ping`)).rejects.toThrow(/self[- ]signed|unable to (get|verify)/i);
  });

  it('does not answer plain HTTP on the TLS port', async () => {
    await expect(request(`${registry.url.replace('https:', 'http:')}/-/ping`)).rejects.toThrow();
  });

  it('npm with cafile pings and authenticates; npm without it refuses the certificate', async () => {
    const login = await httpsJson(`${registry.url}/-/user/org.couchdb.user:npm-tls`, {
      ca,
      method: 'PUT',
      body: { name: 'npm-tls', password: 'npm-tls-password', email: 'npm-tls@example.com' },
    });
    const userconfig = path.join(dir, 'npmrc');
    await writeFile(userconfig, `//127.0.0.1:${registry.port}/:_authToken=${login.body.token}\n`);

    const trusted = await npm(['whoami', '--registry', `${registry.url}/`, '--cafile', certs.caCert], userconfig);
    expect(trusted.stdout.trim()).toBe('npm-tls');
    expect(trusted.code).toBe(0);
    const ping = await npm(['ping', '--registry', `${registry.url}/`, '--cafile', certs.caCert], userconfig);
    expect(ping.code).toBe(0);

    const untrusted = await npm(['ping', '--registry', `${registry.url}/`], userconfig);
    expect(untrusted.code).not.toBe(0);
    expect(untrusted.stderr).toMatch(/SELF_SIGNED|UNABLE_TO_VERIFY|self[- ]signed|unable to verify/i);
  });

  it('the built binary serves HTTPS from --tls-cert/--tls-key', async () => {
    const server = await spawnRegistry({ args: ['--tls-cert', certs.cert, '--tls-key', certs.key] });
    try {
      expect(server.url).toMatch(/^https:\/\//);
      expect(await httpsJson(`${server.url}/-/ping`, { ca })).toEqual({ status: 200, body: {} });
      expect((await server.stop()).code).toBe(0);
    } finally {
      await server.cleanup();
    }
  });

  it('a key that does not belong to the certificate stops start-up with exit code 2', async () => {
    const other = await makeTestCertificates(await mkdtemp(path.join(dir, 'other-')));
    const run = await runRegistryCli([
      'serve',
      '--data',
      path.join(dir, 'data'),
      '--tls-cert',
      certs.cert,
      '--tls-key',
      other.key,
    ]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      `Error: setting 'tlsKey': the key in ${other.key} does not belong to the certificate in ${certs.cert}`,
    );
    expect(run.stderr).toMatch(/\nHint: /);
    expect(existsSync(path.join(dir, 'data'))).toBe(false);
  });
});
