import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '@pkg/server';

describe('loadConfig', () => {
  it('has the documented defaults', () => {
    const config = loadConfig({ env: {}, cwd: '/srv' });
    expect(config.port).toBe(4873);
    expect(config.host).toBe('127.0.0.1');
    expect(config.data).toBe(path.resolve('/srv/data'));
    expect(config.database).toBe(`sqlite:${path.resolve('/srv/data/registry.db')}`);
    expect(config.storage).toBe(path.resolve('/srv/data/tarballs'));
    expect(config.maxTarballSize).toBe(1024 * 1024 * 1024);
    expect(config.rateLimitAnonymous).toBe(100);
  });

  it('takes file < env < flags', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'cfg-'));
    const file = path.join(dir, 'c.json');
    await writeFile(file, JSON.stringify({ port: 1000, host: '0.0.0.0', publicUrl: 'https://file.example/' }));
    const config = loadConfig({
      configFile: file,
      env: { PKG_REGISTRY_PORT: '2000', PKG_REGISTRY_DOMAIN: 'Example.COM' },
      flags: { port: '3000' },
    });
    expect(config.port).toBe(3000);
    expect(config.host).toBe('0.0.0.0');
    expect(config.publicUrl).toBe('https://file.example');
    expect(config.registryDomain).toBe('example.com');
  });

  it.each([
    [{ flags: { port: 'abc' } }, "'port' must be an integer"],
    [{ flags: { port: '70000' } }, 'at most 65535'],
    [{ flags: { publicUrl: 'ftp://x' } }, 'http(s) URL'],
    [{ flags: { readAccess: 'nobody' } }, 'one of anonymous, token'],
    [{ flags: { signup: 'maybe' } }, 'true or false'],
    [{ flags: { database: 'mysql://x' } }, 'sqlite:<path> or a postgres:// URL'],
    [{ flags: { tlsCert: 'a.pem' } }, 'together'],
    [{ env: { PKG_REGISTRY_PROT: '1' } }, 'unknown environment variable PKG_REGISTRY_PROT'],
  ])('rejects %j', (sources, message) => {
    expect(() => loadConfig({ env: {}, ...sources })).toThrow(ConfigError);
    expect(() => loadConfig({ env: {}, ...sources })).toThrow(message);
  });

  it('rejects unknown keys and bad JSON in the config file', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'cfg-'));
    await writeFile(path.join(dir, 'unknown.json'), JSON.stringify({ prot: 1 }));
    await writeFile(path.join(dir, 'bad.json'), '{');
    expect(() => loadConfig({ env: {}, configFile: path.join(dir, 'unknown.json') })).toThrow("unknown setting 'prot'");
    expect(() => loadConfig({ env: {}, configFile: path.join(dir, 'bad.json') })).toThrow('not valid JSON');
  });
});
