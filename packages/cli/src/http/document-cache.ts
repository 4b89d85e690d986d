/**
 * The document cache: package documents (`GET /<name>`) kept in the client's cache folder with
 * the validators the registry sent (`ETag`, `Last-Modified`) and how long the registry says they
 * stay fresh (`Cache-Control: max-age`), as npm keeps them. A fresh one is used without asking;
 * an older one is asked for again with `If-None-Match` / `If-Modified-Since`, and a `304` reuses
 * it. Each entry is one file, `<cache>/documents/<registry>/<name>.json`: a line of metadata,
 * then the document's text as the registry sent it. An entry that cannot be read is a miss, so a
 * file cut short by a crash costs one request, never a wrong answer; the folder is bounded
 * (`DOCUMENT_CACHE_BYTES`), the entries written or revalidated longest ago going first.
 */
import { createHash, randomBytes } from 'node:crypto';
import path from 'node:path';
import { isPackageName } from '@pkg/protocol';
import type { FileSystem } from '../deps.js';

/** The bound of the documents folder; pruning takes it down to three quarters of this. */
export const DOCUMENT_CACHE_BYTES = 64 * 1024 * 1024;

/** How a command uses the cache: fresh entries as they are, or every entry asked for again (conditionally). */
export type DocumentFreshness = 'max-age' | 'revalidate';

export interface CachedDocument {
  /** The document's text as the registry sent it. */
  body: string;
  etag?: string;
  lastModified?: string;
  /** When it was stored or last revalidated (ms since the epoch). */
  storedAt: number;
  /** Seconds it stays fresh from `storedAt`; 0 asks again every time. */
  maxAge: number;
}

interface Meta {
  v: 1;
  etag?: string;
  lastModified?: string;
  storedAt: number;
  maxAge: number;
}

/** What `Cache-Control` (and `Age`) allow: whether to store at all, and for how long it is fresh. */
export function cachePolicy(headers: Record<string, string | undefined>): { store: boolean; maxAge: number } {
  const directives = (headers['cache-control'] ?? '')
    .toLowerCase()
    .split(',')
    .map((d) => d.trim());
  if (directives.includes('no-store')) return { store: false, maxAge: 0 };
  if (directives.includes('no-cache')) return { store: true, maxAge: 0 };
  const maxAge = directives.map((d) => /^max-age\s*=\s*"?(\d+)"?$/.exec(d)?.[1]).find((v) => v !== undefined);
  if (maxAge === undefined) return { store: true, maxAge: 0 };
  // An answer that waited in a shared cache has already spent part of its freshness.
  const age = Number(headers.age ?? 0);
  return { store: true, maxAge: Math.max(0, Number(maxAge) - (Number.isFinite(age) ? age : 0)) };
}

export function isFresh(entry: CachedDocument, now: Date): boolean {
  const age = now.getTime() - entry.storedAt;
  // A clock set back must not make an entry fresh for longer than the registry said.
  return age >= 0 && age < entry.maxAge * 1000;
}

export class DocumentCache {
  readonly #fs: FileSystem;
  readonly #dir: string;
  readonly #now: () => Date;
  readonly #bound: number;
  #written = false;

  constructor(fs: FileSystem, cacheDir: string, now: () => Date, bound = DOCUMENT_CACHE_BYTES) {
    this.#fs = fs;
    this.#dir = path.join(cacheDir, 'documents');
    this.#now = now;
    this.#bound = bound;
  }

  get dir(): string {
    return this.#dir;
  }

  /** The entry's file; null for a name that is not a package name (it would become a path). */
  fileOf(registry: string, name: string): string | null {
    if (!isPackageName(name)) return null;
    // The registry URL may hold a path (a tenant) and a port: a digest of it is a safe folder name.
    const folder = createHash('sha256').update(registry).digest('hex').slice(0, 16);
    return path.join(this.#dir, folder, `${name}.json`);
  }

  async read(registry: string, name: string): Promise<CachedDocument | null> {
    const file = this.fileOf(registry, name);
    if (file === null) return null;
    let text: string;
    try {
      text = await this.#fs.readFile(file, 'utf8');
    } catch {
      return null;
    }
    const newline = text.indexOf('\n');
    if (newline === -1) return null;
    try {
      const meta = JSON.parse(text.slice(0, newline)) as Meta;
      if (meta.v !== 1 || typeof meta.storedAt !== 'number' || typeof meta.maxAge !== 'number') return null;
      return {
        body: text.slice(newline + 1),
        ...(typeof meta.etag === 'string' ? { etag: meta.etag } : {}),
        ...(typeof meta.lastModified === 'string' ? { lastModified: meta.lastModified } : {}),
        storedAt: meta.storedAt,
        maxAge: meta.maxAge,
      };
    } catch {
      return null;
    }
  }

  /** Keeps a `200` answer's document, unless the registry said `no-store`. */
  async store(registry: string, name: string, headers: Record<string, string | undefined>, body: string): Promise<void> {
    const policy = cachePolicy(headers);
    if (!policy.store) {
      await this.forget(registry, name);
      return;
    }
    await this.#write(registry, name, {
      body,
      ...(headers.etag ? { etag: headers.etag } : {}),
      ...(headers['last-modified'] ? { lastModified: headers['last-modified'] } : {}),
      storedAt: this.#now().getTime(),
      maxAge: policy.maxAge,
    });
  }

  /** A `304`: the entry is fresh again for as long as the new answer says; returns it. */
  async revalidated(
    registry: string,
    name: string,
    entry: CachedDocument,
    headers: Record<string, string | undefined>,
  ): Promise<CachedDocument> {
    const policy = cachePolicy(headers);
    const next: CachedDocument = {
      ...entry,
      ...(headers.etag ? { etag: headers.etag } : {}),
      ...(headers['last-modified'] ? { lastModified: headers['last-modified'] } : {}),
      storedAt: this.#now().getTime(),
      maxAge: policy.maxAge,
    };
    if (policy.store) await this.#write(registry, name, next);
    else await this.forget(registry, name);
    return next;
  }

  /** Drops the entry: the document changed through this client (publish, dist-tag, deprecate). */
  async forget(registry: string, name: string): Promise<void> {
    const file = this.fileOf(registry, name);
    if (file !== null) await this.#fs.rm(file, { force: true }).catch(() => undefined);
  }

  /** Removes the documents of `names` from every registry's folder, or every document; returns how many went. */
  async clear(names: string[] = []): Promise<number> {
    let removed = 0;
    for (const folder of await this.#fs.readdir(this.#dir).catch(() => [] as string[])) {
      const dir = path.join(this.#dir, folder);
      for (const file of await this.#fs.readdir(dir).catch(() => [] as string[])) {
        const name = file.endsWith('.json') ? file.slice(0, -'.json'.length) : null;
        if (names.length > 0 && (name === null || !names.includes(name))) continue;
        await this.#fs.rm(path.join(dir, file), { force: true });
        if (name !== null) removed++;
      }
    }
    return removed;
  }

  async #write(registry: string, name: string, entry: CachedDocument): Promise<void> {
    const file = this.fileOf(registry, name);
    if (file === null) return;
    const meta: Meta = {
      v: 1,
      ...(entry.etag !== undefined ? { etag: entry.etag } : {}),
      ...(entry.lastModified !== undefined ? { lastModified: entry.lastModified } : {}),
      storedAt: entry.storedAt,
      maxAge: entry.maxAge,
    };
    // Renamed into place, never synced: a lost or torn entry is only a miss.
    const temp = `${file}.${randomBytes(4).toString('hex')}.tmp`;
    try {
      await this.#fs.mkdir(path.dirname(file), { recursive: true });
      await this.#fs.writeFile(temp, `${JSON.stringify(meta)}\n${entry.body}`);
      await this.#fs.rename(temp, file);
      this.#written = true;
    } catch {
      // A cache that cannot be written (a full disk, a read-only home) costs requests, not the command.
      await this.#fs.rm(temp, { force: true }).catch(() => undefined);
    }
  }

  /**
   * Keeps the folder within its bound: when this run wrote to it and it holds more, the entries
   * written longest ago go until it holds three quarters of the bound.
   */
  async prune(): Promise<void> {
    if (!this.#written) return;
    this.#written = false;
    const entries: { file: string; size: number; mtimeMs: number }[] = [];
    for (const folder of await this.#fs.readdir(this.#dir).catch(() => [] as string[])) {
      const dir = path.join(this.#dir, folder);
      for (const name of await this.#fs.readdir(dir).catch(() => [] as string[])) {
        const file = path.join(dir, name);
        const stat = await this.#fs.stat(file).catch(() => null);
        if (stat?.isFile()) entries.push({ file, size: stat.size, mtimeMs: stat.mtimeMs });
      }
    }
    let total = entries.reduce((sum, e) => sum + e.size, 0);
    if (total <= this.#bound) return;
    entries.sort((a, b) => a.mtimeMs - b.mtimeMs);
    for (const entry of entries) {
      if (total <= this.#bound * 0.75) break;
      await this.#fs.rm(entry.file, { force: true }).catch(() => undefined);
      total -= entry.size;
    }
  }
}
