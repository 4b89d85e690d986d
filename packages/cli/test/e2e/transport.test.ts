import { mkdtemp, writeFile } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  makeTestCertificates,
  startConnectProxy,
  startRegistry,
  type TestCertificates,
  type TestProxy,
  type TestRegistry,
} from '@pkg/testkit';
import { makeHome, pipedLogin, runPkg } from '../support/spawn.js';

/** A port on which nothing listens. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('connection failures', () => {
  it('reports an unreachable registry as "Failed to connect to registry", exit 1', async () => {
    const home = await makeHome();
    const url = `http://127.0.0.1:${await closedPort()}`;
    const result = await runPkg(['login', '--registry', url], { home, input: 'u\np\ne@example.com\n' });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /^Error: Failed to connect to registry\nHint: Could not connect to 127\.0\.0\.1:\d+ \(connection refused\)/,
    );
    const json = await runPkg(['search', 'x', '--registry', url, '--json'], { home });
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({
      success: false,
      error: 'Failed to connect to registry',
      code: 'CONNECT_FAILED',
    });
    expect(json.stderr).toBe('');
  });

  it('reports a host that does not resolve as "Registry not found or unreachable"', async () => {
    const home = await makeHome();
    const result = await runPkg(['search', 'input', '--registry', 'https://registry.invalid'], { home });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      'Error: Registry not found or unreachable\nHint: Could not reach registry.invalid (host name not found). Check the registry URL and your network.\n',
    );
  });

  it('refuses plain http:// to a host that is not loopback, exit 2, before any traffic', async () => {
    const home = await makeHome();
    const result = await runPkg(['login', '--registry', 'http://registry.example.com'], { home, input: 'u\np\ne\n' });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^Error: Refusing plain http:\/\/ to registry\.example\.com/);
    expect(result.stdout).toBe('');
  });
});

describe('HTTPS with a private certificate authority', () => {
  let certs: TestCertificates;
  let registry: TestRegistry;
  let proxy: TestProxy;
  let httpsUrl: string;

  beforeAll(async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'pkg-tls-'));
    certs = await makeTestCertificates(dir, ['a.localhost']);
    registry = await startRegistry({ settings: { tlsCert: certs.cert, tlsKey: certs.key } });
    httpsUrl = `https://localhost:${registry.port}`;
    proxy = await startConnectProxy();
  });
  afterAll(async () => {
    await registry?.close();
    await proxy?.close();
  });

  it('refuses a certificate it cannot verify, with a hint about NODE_EXTRA_CA_CERTS', async () => {
    const home = await makeHome();
    const result = await pipedLogin(home, httpsUrl, 'tlsuser');
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /^Error: Failed to connect to registry\nHint: The TLS certificate of localhost:\d+ could not be verified \([A-Z_]+\)/,
    );
    expect(result.stderr).toContain('NODE_EXTRA_CA_CERTS');
  });

  it('refuses a certificate that does not name the host', async () => {
    const home = await makeHome();
    const result = await pipedLogin(home, `https://b.localhost:${registry.port}`, 'tlsuser', 'pw', [], {
      NODE_EXTRA_CA_CERTS: certs.caCert,
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('ERR_TLS_CERT_ALTNAME_INVALID');
  });

  it('logs in over HTTPS when NODE_EXTRA_CA_CERTS trusts the CA', async () => {
    const home = await makeHome();
    const env = { NODE_EXTRA_CA_CERTS: certs.caCert };
    const result = await pipedLogin(home, httpsUrl, 'tlsuser', 'pw', [], env);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Successfully authenticated!');
    const whoami = await runPkg(['whoami'], { home, env });
    expect(whoami.stdout).toContain('Username: tlsuser');
  });

  it('goes through an HTTPS_PROXY with CONNECT, unless NO_PROXY names the host', async () => {
    const home = await makeHome();
    const env = { NODE_EXTRA_CA_CERTS: certs.caCert, HTTPS_PROXY: proxy.url };
    const url = `https://a.localhost:${registry.port}`;
    const before = proxy.tunnels.length;
    const result = await pipedLogin(home, url, 'proxied', 'pw', [], env);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(proxy.tunnels.slice(before)).toContain(`a.localhost:${registry.port}`);

    const count = proxy.tunnels.length;
    const direct = await runPkg(['whoami'], { home, env: { ...env, NO_PROXY: 'a.localhost' } });
    expect(direct.stdout).toContain('Username: proxied');
    expect(proxy.tunnels.length).toBe(count);
  });

  it('goes through an HTTP_PROXY for a plain-http loopback registry', async () => {
    const plain = await startRegistry();
    try {
      const home = await makeHome();
      const before = proxy.tunnels.length;
      const result = await pipedLogin(home, plain.url, 'httpproxied', 'pw', [], { HTTP_PROXY: proxy.url });
      expect(result.code).toBe(0);
      expect(proxy.tunnels.slice(before)).toContain(new URL(plain.url).host);
    } finally {
      await plain.close();
    }
  });

  it('reports a proxy that cannot be reached as "Failed to connect to registry"', async () => {
    const home = await makeHome();
    const result = await runPkg(['search', 'x', '--registry', httpsUrl], {
      home,
      env: { NODE_EXTRA_CA_CERTS: certs.caCert, HTTPS_PROXY: `http://127.0.0.1:${await closedPort()}` },
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^Error: Failed to connect to registry\n/);
  });
});

describe('start-up', () => {
  it('`pkg --help` loads neither undici nor the keychain binding', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'pkg-loads-'));
    const log = path.join(dir, 'loaded.txt');
    const hooks = path.join(dir, 'hooks.mjs');
    await writeFile(
      hooks,
      `import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  appendFileSync(${JSON.stringify(log)}, result.url + '\\n');
  return result;
}`,
    );
    const register = path.join(dir, 'register.mjs');
    await writeFile(register, `import { register } from 'node:module';\nregister(${JSON.stringify(`file://${hooks}`)});\n`);
    const home = await makeHome();
    const result = await runPkg(['--help'], { home, nodeArgs: ['--import', register] });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Usage: pkg');
    const loaded = await (await import('node:fs/promises')).readFile(log, 'utf8');
    expect(loaded).toContain('/dist/commands/index.js');
    expect(loaded).not.toMatch(/undici|@napi-rs|smol-toml|\/tar\//);
  });
});
