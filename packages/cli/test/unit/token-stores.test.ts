import * as fs from 'node:fs/promises';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { KeyringBinding } from '../../src/deps.js';
import { KeychainTokenStore } from '../../src/auth/keychain.js';
import { selectTokenStore } from '../../src/auth/select.js';
import { ClientError } from '../../src/errors/client-errors.js';

/** A stand-in for the native binding only: an in-memory keychain with the binding's shape. */
function fakeBinding(options: { broken?: boolean } = {}) {
  const entries = new Map<string, string>();
  const opened: { service: string; account: string; options: unknown }[] = [];
  class AsyncEntry {
    readonly key: string;
    constructor(service: string, account: string, entryOptions?: unknown) {
      opened.push({ service, account, options: entryOptions });
      this.key = `${service}/${account}`;
    }
    async getPassword() {
      if (options.broken) throw new Error('Platform failure: DBus error');
      return entries.get(this.key) ?? null;
    }
    async setPassword(password: string) {
      if (options.broken) throw new Error('Platform failure: DBus error');
      entries.set(this.key, password);
    }
    async deleteCredential() {
      if (options.broken) throw new Error('Platform failure: DBus error');
      return entries.delete(this.key);
    }
  }
  return { binding: { AsyncEntry } as KeyringBinding, entries, opened };
}

describe('KeychainTokenStore', () => {
  it('keeps one entry per host under the pkg-registry service', async () => {
    const { binding, entries } = fakeBinding();
    const store = new KeychainTokenStore(binding, 'darwin');
    await store.set('registry.example', 't1');
    await store.set('acme.registry.example:8443', 't2');
    expect(Object.fromEntries(entries)).toEqual({
      'pkg-registry/registry.example': 't1',
      'pkg-registry/acme.registry.example:8443': 't2',
    });
    expect(await store.get('registry.example')).toBe('t1');
    expect(await store.get('missing.example')).toBeNull();
    expect(await store.delete('registry.example')).toBe(true);
    expect(await store.get('registry.example')).toBeNull();
  });

  it('pins Linux entries to the Secret Service, never the forgetful kernel keyring', async () => {
    const { binding, opened } = fakeBinding();
    await new KeychainTokenStore(binding, 'linux').set('h', 't');
    await new KeychainTokenStore(binding, 'win32').set('h', 't');
    expect(opened[0]!.options).toEqual({ linux: { store: 'secret-service' } });
    expect(opened[1]!.options).toBeUndefined();
  });

  it('says whether a keychain answers, and wraps its failures', async () => {
    expect(await new KeychainTokenStore(fakeBinding().binding, 'linux').available()).toBe(true);
    const broken = new KeychainTokenStore(fakeBinding({ broken: true }).binding, 'linux');
    expect(await broken.available()).toBe(false);
    await expect(broken.set('h', 't')).rejects.toThrow(/keychain refused to store the token for h/);
  });
});

describe('selectTokenStore', () => {
  const base = async () => ({
    env: {} as Record<string, string>,
    platform: 'linux' as const,
    dataDir: await mkdtemp(path.join(tmpdir(), 'pkg-select-')),
    fs,
    sleep: async () => undefined,
    now: () => new Date(),
    envTokenHost: 'h',
  });

  it('uses the keychain when it answers', async () => {
    const store = await selectTokenStore({ ...(await base()), setting: 'auto', loadKeyring: async () => fakeBinding().binding });
    expect(store.name).toBe('keychain');
  });

  it('falls back to the encrypted file when the keychain does not answer or the binding fails to load', async () => {
    const broken = await selectTokenStore({
      ...(await base()),
      setting: 'auto',
      loadKeyring: async () => fakeBinding({ broken: true }).binding,
    });
    expect(broken.name).toBe('encrypted file');
    const missing = await selectTokenStore({
      ...(await base()),
      setting: 'auto',
      loadKeyring: async () => {
        throw new Error('cannot load native module');
      },
    });
    expect(missing.name).toBe('encrypted file');
  });

  it('honours tokenStore=file and fails clearly for tokenStore=keychain without a keychain', async () => {
    const { binding, entries } = fakeBinding();
    const file = await selectTokenStore({ ...(await base()), setting: 'file', loadKeyring: async () => binding });
    await file.set('h', 't');
    expect(file.name).toBe('encrypted file');
    expect(entries.size).toBe(0);
    await expect(
      selectTokenStore({
        ...(await base()),
        setting: 'keychain',
        loadKeyring: async () => fakeBinding({ broken: true }).binding,
      }),
    ).rejects.toBeInstanceOf(ClientError);
  });

  it('lets PKG_TOKEN override reads for the registry in effect while writes still reach the store', async () => {
    const { binding, entries } = fakeBinding();
    const store = await selectTokenStore({
      ...(await base()),
      env: { PKG_TOKEN: 'ci-token' },
      setting: 'auto',
      loadKeyring: async () => binding,
    });
    expect(store.overridden).toBe(true);
    expect(store.name).toBe('keychain');
    expect(await store.get('h')).toBe('ci-token');
    expect(await store.get('other.host')).toBe(null);
    await store.set('h', 'stored');
    await store.set('other.host', 'other');
    expect(entries.get('pkg-registry/h')).toBe('stored');
    expect(await store.get('h')).toBe('ci-token');
    expect(await store.get('other.host')).toBe('other');
  });
});
