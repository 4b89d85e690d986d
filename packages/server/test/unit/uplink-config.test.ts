import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/config.js';
import { UplinkRules, parseUplinks } from '../../src/config/uplink-config.js';
import { matchesIntegrity } from '../../src/services/uplinks/upstream-document.js';
import { createHash } from 'node:crypto';
import type { VersionRecord } from '@pkg/protocol';

const uplink = (fields: Record<string, unknown>) => ({
  name: 'openupm',
  url: 'https://package.openupm.com',
  packages: ['com.a.*'],
  ...fields,
});

describe('the uplinks setting', () => {
  it('is read from the config value or PKG_REGISTRY_UPLINKS, with defaults filled in', () => {
    const json = JSON.stringify([uplink({ tokenEnv: 'OPENUPM_TOKEN' })]);
    const config = loadConfig({ env: { PKG_REGISTRY_UPLINKS: json } });
    expect(config.uplinks).toEqual([
      {
        name: 'openupm',
        url: 'https://package.openupm.com',
        packages: ['com.a.*'],
        maxAge: 300,
        timeout: 30,
        tokenEnv: 'OPENUPM_TOKEN',
        search: false,
      },
    ]);
    expect(loadConfig({ env: {} }).uplinks).toEqual([]);
  });

  it.each([
    ['not JSON', '[{', /must be JSON/],
    ['not an array', '{}', /JSON array/],
    ['an unknown field', JSON.stringify([uplink({ ttl: 3 })]), /unknown field 'ttl'/],
    ['a bad name', JSON.stringify([uplink({ name: 'Open UPM' })]), /'name'/],
    ['a URL that is not http(s)', JSON.stringify([uplink({ url: 'ftp://x' })]), /'url'/],
    ['credentials in the URL', JSON.stringify([uplink({ url: 'https://u:p@x.example' })]), /tokenEnv/],
    ['no packages', JSON.stringify([uplink({ packages: [] })]), /'packages'/],
    ['a rule that is not a name or namespace', JSON.stringify([uplink({ packages: ['com.*.x'] })]), /neither a package name/],
    ['a negative maxAge', JSON.stringify([uplink({ maxAge: -1 })]), /'maxAge'/],
    ['a zero timeout', JSON.stringify([uplink({ timeout: 0 })]), /'timeout'/],
    ['a bad tokenEnv', JSON.stringify([uplink({ tokenEnv: 'A-B' })]), /'tokenEnv'/],
    ['two uplinks of one name', JSON.stringify([uplink({}), uplink({ packages: ['com.b.*'] })]), /used twice/],
    ['a rule claimed twice', JSON.stringify([uplink({}), uplink({ name: 'other' })]), /claimed by uplinks 'openupm' and 'other'/],
  ])('stops start-up with a clear message for %s', (_what, value, message) => {
    expect(() => loadConfig({ env: { PKG_REGISTRY_UPLINKS: value } })).toThrow(ConfigError);
    expect(() => loadConfig({ env: { PKG_REGISTRY_UPLINKS: value } })).toThrow(message);
  });
});

describe('UplinkRules', () => {
  const rules = new UplinkRules(
    parseUplinks([
      { name: 'wide', url: 'https://wide.example', packages: ['com.example.*'] },
      { name: 'narrow', url: 'https://narrow.example', packages: ['com.example.tools.*', 'com.example.exact'], search: true },
    ]),
    {},
  );

  it('picks the most specific rule: an exact name, then the longest namespace', () => {
    expect(rules.match('com.example.exact')?.name).toBe('narrow');
    expect(rules.match('com.example.exact.sub')?.name).toBe('wide');
    expect(rules.match('com.example.tools.hammer')?.name).toBe('narrow');
    expect(rules.match('com.example.tools.hammer.extra')?.name).toBe('narrow');
    expect(rules.match('com.example.tools')?.name).toBe('wide');
    expect(rules.match('com.example.other')?.name).toBe('wide');
  });

  it('leaves every other name local, the namespace itself included', () => {
    expect(rules.match('com.example')).toBeUndefined();
    expect(rules.match('com.examples.x')).toBeUndefined();
    expect(rules.match('org.example.x')).toBeUndefined();
  });

  it('answers a name asked again (remembered) as the first time, covered or local', () => {
    const names = ['com.example.exact', 'com.example.tools.hammer', 'com.example.other', 'com.example', 'org.example.x'];
    const first = names.map((name) => rules.match(name)?.name);
    expect(names.map((name) => rules.match(name)?.name)).toEqual(first);
    expect(first).toEqual(['narrow', 'narrow', 'wide', undefined, undefined]);
  });

  it('reads the token from the environment variable named by tokenEnv', () => {
    const withToken = new UplinkRules(parseUplinks([uplink({ tokenEnv: 'UPLINK_TOKEN' })]), { UPLINK_TOKEN: 's3cret' });
    expect(withToken.uplinks[0]!.authorization).toBe('Bearer s3cret');
    expect(new UplinkRules(parseUplinks([uplink({ tokenEnv: 'UPLINK_TOKEN' })]), {}).uplinks[0]!.authorization).toBeUndefined();
    expect(rules.searching.map((u) => u.name)).toEqual(['narrow']);
  });
});

describe('integrity of an upstream tarball', () => {
  const bytes = Buffer.from('tarball bytes');
  const sha512 = `sha512-${createHash('sha512').update(bytes).digest('base64')}`;
  const record = (dist: Record<string, string>) => ({ name: 'com.a.b', version: '1.0.0', dist }) as unknown as VersionRecord;

  it('matches sha512 integrity, several hashes, or a shasum alone', () => {
    expect(matchesIntegrity(record({ tarball: 'x', integrity: sha512 }), bytes)).toBe(true);
    const sha1 = `sha1-${createHash('sha1').update(bytes).digest('base64')}`;
    expect(matchesIntegrity(record({ tarball: 'x', integrity: `${sha512} ${sha1}` }), bytes)).toBe(true);
    expect(matchesIntegrity(record({ tarball: 'x', shasum: createHash('sha1').update(bytes).digest('hex') }), bytes)).toBe(true);
  });

  it('refuses other bytes, and a record without a usable hash', () => {
    expect(matchesIntegrity(record({ tarball: 'x', integrity: sha512 }), Buffer.from('other'))).toBe(false);
    expect(matchesIntegrity(record({ tarball: 'x', integrity: 'md5-abc' }), bytes)).toBe(false);
    expect(matchesIntegrity(record({ tarball: 'x' }), bytes)).toBe(false);
  });
});
