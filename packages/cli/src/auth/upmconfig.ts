import path from 'node:path';
import type { FileSystem } from '../deps.js';
import { readTextIfExists, writeFileAtomic } from '../io/fs.js';

/**
 * Unity's user config (`~/.upmconfig.toml`, or `UPM_USER_CONFIG_FILE`): the Unity Editor cannot
 * log in by itself and reads registry tokens from `[npmAuth."<registry url>"]` tables here.
 * Edits keep every other table and key; comments are not preserved (TOML is re-serialized).
 */
export function upmConfigPath(
  env: Readonly<Record<string, string | undefined>>,
  homedir: string,
  platform: NodeJS.Platform,
): string {
  if (env.UPM_USER_CONFIG_FILE) return env.UPM_USER_CONFIG_FILE;
  return (platform === 'win32' ? path.win32 : path.posix).join(homedir, '.upmconfig.toml');
}

type Table = Record<string, unknown>;

async function readToml(fs: FileSystem, file: string): Promise<Table> {
  return (await readTomlText(fs, file)).doc;
}

/** The file's tables, and its line ending (a file written on Windows keeps CRLF when rewritten). */
async function readTomlText(fs: FileSystem, file: string): Promise<{ doc: Table; eol: '\n' | '\r\n' }> {
  const text = await readTextIfExists(fs, file);
  const eol = text?.includes('\r\n') ? '\r\n' : '\n';
  if (text === null || text.trim() === '') return { doc: {}, eol };
  const { parse } = await import('smol-toml');
  return { doc: parse(text), eol };
}

async function writeToml(fs: FileSystem, file: string, doc: Table, eol: '\n' | '\r\n'): Promise<void> {
  const { stringify } = await import('smol-toml');
  // The file holds tokens: readable by its owner only.
  await writeFileAtomic(fs, file, `${stringify(doc)}\n`.replace(/\r?\n/g, eol), { mode: 0o600 });
}

const sameRegistry = (a: string, b: string) => a.replace(/\/+$/, '') === b.replace(/\/+$/, '');

/** Sets `[npmAuth."<registry>"] token` (and `alwaysAuth = true`), replacing any entry for that URL. */
export async function writeUpmToken(fs: FileSystem, file: string, registry: string, token: string): Promise<void> {
  const { doc, eol } = await readTomlText(fs, file);
  const npmAuth = (typeof doc.npmAuth === 'object' && doc.npmAuth !== null ? doc.npmAuth : {}) as Table;
  for (const key of Object.keys(npmAuth)) if (sameRegistry(key, registry)) delete npmAuth[key];
  npmAuth[registry] = { token, alwaysAuth: true };
  doc.npmAuth = npmAuth;
  await writeToml(fs, file, doc, eol);
}

/**
 * Removes the entry for `registry` that holds `token` (what `pkg login --upmconfig` wrote);
 * an entry holding another token was put there by someone else and stays. True when removed.
 */
export async function removeUpmToken(fs: FileSystem, file: string, registry: string, token: string): Promise<boolean> {
  const { doc, eol } = await readTomlText(fs, file);
  const npmAuth = doc.npmAuth as Table | undefined;
  if (typeof npmAuth !== 'object' || npmAuth === null) return false;
  let removed = false;
  for (const [key, entry] of Object.entries(npmAuth)) {
    if (sameRegistry(key, registry) && (entry as Table)?.token === token) {
      delete npmAuth[key];
      removed = true;
    }
  }
  if (!removed) return false;
  if (Object.keys(npmAuth).length === 0) delete doc.npmAuth;
  await writeToml(fs, file, doc, eol);
  return true;
}

/** A credential Unity would send to a registry, read from `[npmAuth."<url>"]`. */
export interface UpmCredential {
  /** The token, or the base64 `user:password` of `_auth`. */
  value: string;
  scheme: 'Bearer' | 'Basic';
  /** `alwaysAuth`: send it with every request rather than only when the registry asks. */
  alwaysAuth: boolean;
}

/**
 * The credential `~/.upmconfig.toml` holds for `registry` (the key matched with and without a
 * trailing slash, as Unity does); null when there is none or the file does not exist. A file
 * that is not valid TOML is an error: Unity would not read it either.
 */
export async function readUpmCredential(fs: FileSystem, file: string, registry: string): Promise<UpmCredential | null> {
  const doc = await readToml(fs, file);
  const npmAuth = doc.npmAuth;
  if (typeof npmAuth !== 'object' || npmAuth === null) return null;
  for (const [key, raw] of Object.entries(npmAuth as Table)) {
    if (!sameRegistry(key, registry) || typeof raw !== 'object' || raw === null) continue;
    const entry = raw as Table;
    const alwaysAuth = entry.alwaysAuth === true;
    if (typeof entry.token === 'string' && entry.token !== '') return { value: entry.token, scheme: 'Bearer', alwaysAuth };
    if (typeof entry._auth === 'string' && entry._auth !== '') return { value: entry._auth, scheme: 'Basic', alwaysAuth };
  }
  return null;
}
