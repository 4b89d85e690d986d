import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs/promises';
import { mkdtemp, readFile, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { EncryptedFileTokenStore } from '../../src/auth/encrypted-file.js';
import { TokenStoreError } from '../../src/auth/token-store.js';

async function newStore(dir?: string) {
  const base = dir ?? path.join(await mkdtemp(path.join(tmpdir(), 'pkg-store-')), 'credentials');
  return new EncryptedFileTokenStore({
    fs,
    dir: base,
    sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
    now: () => new Date(),
  });
}

const TOKEN = 'tok_6f1c2b0e9d8a7f6e5d4c3b2a19081726';

async function flipByte(file: string, host: string, field: 'data' | 'tag' | 'iv') {
  const doc = JSON.parse(await readFile(file, 'utf8'));
  const bytes = Buffer.from(doc.records[host][field], 'base64');
  bytes[0]! ^= 0x01;
  doc.records[host][field] = bytes.toString('base64');
  await writeFile(file, JSON.stringify(doc));
}

describe('EncryptedFileTokenStore', () => {
  it('round-trips tokens per host and keeps no plaintext on disk', async () => {
    const store = await newStore();
    expect(await store.get('registry.example')).toBeNull();
    await store.set('registry.example', TOKEN);
    await store.set('acme.registry.example', 'other-token-value');
    expect(await store.get('registry.example')).toBe(TOKEN);
    expect(await store.get('acme.registry.example')).toBe('other-token-value');
    const text = await readFile(store.tokenFile, 'utf8');
    expect(text).not.toContain(TOKEN);
    expect(text).not.toContain('other-token-value');
    expect(Object.keys(JSON.parse(text).records).sort()).toEqual(['acme.registry.example', 'registry.example']);
  });

  it('keeps a random 256-bit key in its own 0600 file inside a 0700 directory', async () => {
    const store = await newStore();
    await store.set('h', TOKEN);
    const key = await readFile(store.keyFile);
    expect(key.length).toBe(32);
    expect((await stat(store.keyFile)).mode & 0o777).toBe(0o600);
    expect((await stat(store.tokenFile)).mode & 0o777).toBe(0o600);
    expect((await stat(path.dirname(store.keyFile))).mode & 0o777).toBe(0o700);
    const other = await newStore();
    await other.set('h', TOKEN);
    expect((await readFile(other.keyFile)).equals(key)).toBe(false);
  });

  it('uses a fresh IV for every write', async () => {
    const store = await newStore();
    await store.set('h', TOKEN);
    const first = JSON.parse(await readFile(store.tokenFile, 'utf8')).records.h;
    await store.set('h', TOKEN);
    const second = JSON.parse(await readFile(store.tokenFile, 'utf8')).records.h;
    expect(second.iv).not.toBe(first.iv);
    expect(second.data).not.toBe(first.data);
  });

  for (const field of ['data', 'tag', 'iv'] as const) {
    it(`detects a flipped byte in the ${field}`, async () => {
      const store = await newStore();
      await store.set('h', TOKEN);
      await flipByte(store.tokenFile, 'h', field);
      await expect(store.get('h')).rejects.toThrow(TokenStoreError);
      await expect(store.get('h')).rejects.toThrow(/failed authentication/);
    });
  }

  it('detects a record moved to another host', async () => {
    const store = await newStore();
    await store.set('attacker.example', 'attacker-token');
    await store.set('victim.example', TOKEN);
    const doc = JSON.parse(await readFile(store.tokenFile, 'utf8'));
    doc.records['victim.example'] = doc.records['attacker.example'];
    await writeFile(store.tokenFile, JSON.stringify(doc));
    await expect(store.get('victim.example')).rejects.toThrow(/failed authentication/);
  });

  it('refuses to decrypt with a wrong key', async () => {
    const store = await newStore();
    await store.set('h', TOKEN);
    await writeFile(store.keyFile, randomBytes(32));
    await expect(store.get('h')).rejects.toThrow(/the key does not match/);
  });

  it('reports a missing or truncated key and a damaged file clearly', async () => {
    const store = await newStore();
    await store.set('h', TOKEN);
    await writeFile(store.keyFile, randomBytes(16));
    await expect(store.get('h')).rejects.toThrow(/wrong length/);
    await fs.rm(store.keyFile);
    await expect(store.get('h')).rejects.toThrow(/is missing/);
    await writeFile(store.tokenFile, '{not json');
    await expect(store.get('h')).rejects.toThrow(/damaged/);
  });

  it('replaces a token after it was tampered with, leaving other hosts readable', async () => {
    const store = await newStore();
    await store.set('a', 'token-a');
    await store.set('b', 'token-b');
    await flipByte(store.tokenFile, 'a', 'data');
    await store.set('a', 'token-a2');
    expect(await store.get('a')).toBe('token-a2');
    expect(await store.get('b')).toBe('token-b');
  });

  it('deletes one host only', async () => {
    const store = await newStore();
    await store.set('a', 'token-a');
    await store.set('b', 'token-b');
    expect(await store.delete('a')).toBe(true);
    expect(await store.delete('a')).toBe(false);
    expect(await store.get('a')).toBeNull();
    expect(await store.get('b')).toBe('token-b');
  });

  it('loses no update under concurrent writers, each with its own store instance', async () => {
    const first = await newStore();
    const dir = path.dirname(first.tokenFile);
    const stores = await Promise.all(Array.from({ length: 24 }, () => newStore(dir)));
    await Promise.all(stores.map((store, i) => store.set(`host${i}.example`, `token-${i}`)));
    for (let i = 0; i < stores.length; i++) expect(await first.get(`host${i}.example`)).toBe(`token-${i}`);
    // Interleaved sets and deletes converge too.
    await Promise.all(
      stores.map((store, i) => (i % 2 ? store.delete(`host${i}.example`) : store.set(`host${i}.example`, `new-${i}`))),
    );
    for (let i = 0; i < stores.length; i++) expect(await first.get(`host${i}.example`)).toBe(i % 2 ? null : `new-${i}`);
    expect((await fs.readdir(dir)).sort()).toEqual(['tokens.json', 'tokens.key']);
  });

  it('takes over a lock left behind by a crashed process', async () => {
    const store = await newStore();
    await store.set('a', 'token-a');
    const lock = path.join(path.dirname(store.tokenFile), 'tokens.lock');
    await writeFile(lock, '');
    const old = new Date(Date.now() - 60_000);
    await fs.utimes(lock, old, old);
    await store.set('b', 'token-b');
    expect(await store.get('b')).toBe('token-b');
  });
});
