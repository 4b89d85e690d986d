import * as fs from 'node:fs/promises';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readUpmCredential, removeUpmToken, upmConfigPath, writeUpmToken } from '../../src/auth/upmconfig.js';

async function file(text: string | null): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'pkg-upm-'));
  const target = path.join(dir, '.upmconfig.toml');
  if (text !== null) await writeFile(target, text);
  return target;
}

describe('readUpmCredential', () => {
  it('reads a token, matching the URL with or without a trailing slash', async () => {
    const withSlash = await file('[npmAuth."https://acme.example/"]\ntoken = "t1"\nalwaysAuth = true\n');
    expect(await readUpmCredential(fs, withSlash, 'https://acme.example')).toEqual({
      value: 't1',
      scheme: 'Bearer',
      alwaysAuth: true,
    });
    const without = await file('[npmAuth."https://acme.example"]\ntoken = "t2"\n');
    expect(await readUpmCredential(fs, without, 'https://acme.example/')).toEqual({
      value: 't2',
      scheme: 'Bearer',
      alwaysAuth: false,
    });
  });

  it('reads _auth as a Basic credential', async () => {
    const basic = Buffer.from('alice:secret').toString('base64');
    const target = await file(`[npmAuth."https://acme.example"]\n_auth = "${basic}"\nalwaysAuth = true\n`);
    expect(await readUpmCredential(fs, target, 'https://acme.example')).toEqual({
      value: basic,
      scheme: 'Basic',
      alwaysAuth: true,
    });
  });

  it('has nothing for another registry, an empty entry or a missing file', async () => {
    const other = await file('[npmAuth."https://other.example"]\ntoken = "t"\n[npmAuth."https://acme.example"]\n');
    expect(await readUpmCredential(fs, other, 'https://acme.example')).toBeNull();
    expect(await readUpmCredential(fs, await file(null), 'https://acme.example')).toBeNull();
  });

  it('fails on a file that is not TOML (Unity would not read it either)', async () => {
    await expect(readUpmCredential(fs, await file('[npmAuth\n'), 'https://acme.example')).rejects.toThrow();
  });
});

describe('~/.upmconfig.toml on Windows', () => {
  it('lives in the user profile, with a drive letter and backslashes', () => {
    expect(upmConfigPath({}, 'C:\\Users\\dev', 'win32')).toBe('C:\\Users\\dev\\.upmconfig.toml');
    expect(upmConfigPath({ UPM_USER_CONFIG_FILE: 'D:\\unity\\upm.toml' }, 'C:\\Users\\dev', 'win32')).toBe('D:\\unity\\upm.toml');
  });

  it('a file written with CRLF keeps CRLF when pkg adds and removes its token', async () => {
    const target = await file('[npmAuth."https://other.example"]\r\ntoken = "theirs"\r\nalwaysAuth = true\r\n');
    await writeUpmToken(fs, target, 'https://registry.example', 'ours');
    const written = await readFile(target, 'utf8');
    expect(written).toContain('token = "ours"');
    expect(written.replace(/\r\n/g, '')).not.toContain('\n');
    expect(await removeUpmToken(fs, target, 'https://registry.example', 'ours')).toBe(true);
    const after = await readFile(target, 'utf8');
    expect(after).toContain('token = "theirs"');
    expect(after).not.toContain('ours');
    expect(after.replace(/\r\n/g, '')).not.toContain('\n');
  });

  it('a file with LF, or none yet, is written with LF', async () => {
    const target = await file(null);
    await writeUpmToken(fs, target, 'https://registry.example', 'ours');
    expect(await readFile(target, 'utf8')).not.toContain('\r');
  });
});
