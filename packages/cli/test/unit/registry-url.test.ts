import { describe, expect, it } from 'vitest';
import { isLoopbackHost, specialUseAddress } from '../../src/http/loopback.js';
import { parseRegistryUrl, registryHostKey } from '../../src/http/registry-url.js';

describe('registry URLs', () => {
  it('accepts https anywhere and http only for loopback hosts', () => {
    expect(parseRegistryUrl('https://registry.example.com/')).toBe('https://registry.example.com');
    expect(parseRegistryUrl('https://host.example/npm/acme/')).toBe('https://host.example/npm/acme');
    for (const ok of [
      'http://localhost:4873',
      'http://a.localhost:1',
      'http://127.0.0.1',
      'http://127.9.9.9:80',
      'http://[::1]:4873',
    ]) {
      expect(() => parseRegistryUrl(ok), ok).not.toThrow();
    }
    for (const bad of ['http://registry.example.com', 'http://10.0.0.1', 'http://localhost.example.com', 'http://128.0.0.1']) {
      expect(() => parseRegistryUrl(bad), bad).toThrow(/Refusing plain http/);
    }
    for (const bad of ['ftp://x', 'registry.example.com', 'https://user:pw@host.example', 'https://h.example/?q=1']) {
      expect(() => parseRegistryUrl(bad), bad).toThrow(/Invalid registry URL|Unsupported/);
    }
  });

  it('keys tokens by host and port, so tenants are separate hosts', () => {
    expect(registryHostKey(parseRegistryUrl('https://acme.registry.example'))).toBe('acme.registry.example');
    expect(registryHostKey(parseRegistryUrl('https://registry.example:443/x'))).toBe('registry.example');
    expect(registryHostKey(parseRegistryUrl('http://A.localhost:4873'))).toBe('a.localhost:4873');
  });

  it('resolves *.localhost to loopback and .invalid to nothing, without DNS', () => {
    expect(isLoopbackHost('LOCALHOST')).toBe(true);
    expect(isLoopbackHost('[::1]')).toBe(true);
    expect(isLoopbackHost('example.com')).toBe(false);
    expect(specialUseAddress('tenant.localhost')).toEqual({ address: '127.0.0.1', family: 4 });
    expect(specialUseAddress('registry.invalid')).toBe('nxdomain');
    expect(specialUseAddress('registry.example.com')).toBeNull();
  });
});
