import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { ClientAddressing, proxyTrustOf } from '../../src/http/client-address.js';

function request(peer: string, headers: Record<string, string>, encrypted = false): IncomingMessage {
  return { socket: { remoteAddress: peer, encrypted }, headers } as unknown as IncomingMessage;
}

const forwarded = {
  host: 'internal:4873',
  'x-forwarded-for': '203.0.113.7, 10.0.0.2',
  'x-forwarded-host': 'registry.example.com',
  'x-forwarded-proto': 'https',
};

describe('client addressing under a trustProxy setting', () => {
  it('false: the socket peer, the Host and the socket scheme, whatever the headers say', () => {
    const addressing = new ClientAddressing(proxyTrustOf(false));
    const req = request('10.0.0.1', forwarded);
    expect([addressing.ip(req), addressing.host(req), addressing.protocol(req)]).toEqual(['10.0.0.1', 'internal:4873', 'http']);
    expect(addressing.protocol(request('10.0.0.1', {}, true))).toBe('https');
  });

  it('true: the first address of X-Forwarded-For and the forwarded host and scheme', () => {
    const addressing = new ClientAddressing(proxyTrustOf(true));
    const req = request('10.0.0.1', forwarded);
    expect([addressing.ip(req), addressing.host(req), addressing.protocol(req)]).toEqual([
      '203.0.113.7',
      'registry.example.com',
      'https',
    ]);
  });

  it('a hop count trusts that many proxies nearest the server', () => {
    const req = request('10.0.0.1', forwarded);
    expect(new ClientAddressing(proxyTrustOf(1)).ip(req)).toBe('10.0.0.2');
    expect(new ClientAddressing(proxyTrustOf(2)).ip(req)).toBe('203.0.113.7');
    expect(new ClientAddressing(proxyTrustOf(1)).host(req)).toBe('registry.example.com');
  });

  it('addresses: only a listed proxy is believed', () => {
    const listed = new ClientAddressing(proxyTrustOf(['10.0.0.0/8']));
    expect(listed.ip(request('10.0.0.1', forwarded))).toBe('203.0.113.7');
    const other = new ClientAddressing(proxyTrustOf(['192.168.0.1']));
    const req = request('10.0.0.1', forwarded);
    expect([other.ip(req), other.host(req), other.protocol(req)]).toEqual(['10.0.0.1', 'internal:4873', 'http']);
  });

  it('a header sent twice counts by its last value; hosts are lowercased; no Host is localhost', () => {
    const addressing = new ClientAddressing(proxyTrustOf(true));
    expect(addressing.host(request('10.0.0.1', { 'x-forwarded-host': 'A.example, B.Example ' }))).toBe('b.example');
    expect(addressing.protocol(request('10.0.0.1', { 'x-forwarded-proto': 'http, https' }))).toBe('https');
    expect(new ClientAddressing(proxyTrustOf(false)).host(request('10.0.0.1', {}))).toBe('localhost');
  });
});
