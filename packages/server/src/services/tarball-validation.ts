import type { ReadEntry } from 'tar';
import { ProtocolError } from '@pkg/protocol';

/** What a valid package tarball holds, as far as the registry cares. */
export interface TarballFacts {
  /** `package/package.json`, parsed. */
  manifest: Record<string, unknown>;
  /** Regular files in the archive (npm's `dist.fileCount`). */
  fileCount: number;
  /** Sum of the file sizes (npm's `dist.unpackedSize`). */
  unpackedSize: number;
  /** Whether `package/npm-shrinkwrap.json` is present (npm's `_hasShrinkwrap`). */
  hasShrinkwrap: boolean;
}

export interface TarballLimits {
  /** Refuse archives whose files add up to more than this many bytes (zip bombs). */
  maxUnpackedSize: number;
}

const MANIFEST_PATH = 'package/package.json';
const SHRINKWRAP_PATH = 'package/npm-shrinkwrap.json';
const MAX_MANIFEST_SIZE = 1024 * 1024;

/**
 * Reads a publish tarball without extracting it: it must be a gzip-compressed tar, every path
 * must stay inside the archive (no absolute paths, no `..`), and `package/package.json` must be
 * present and parse as an object. Anything else is 422 VALIDATION_ERROR.
 */
export async function inspectTarball(bytes: Buffer, limits: TarballLimits): Promise<TarballFacts> {
  if (bytes.length < 2 || bytes[0] !== 0x1f || bytes[1] !== 0x8b) {
    throw invalid('the tarball is not gzip-compressed');
  }
  let fileCount = 0;
  let unpackedSize = 0;
  let manifestText: string | undefined;
  let manifestSeen = false;
  let hasShrinkwrap = false;

  // Loaded on the first publish: a registry that only serves reads never needs it in memory.
  const { Parser } = await import('tar');
  await new Promise<void>((resolve, reject) => {
    let failed = false;
    const parser = new Parser({
      strict: true,
      // The registry never writes these files anywhere; only the ratio guard matters here.
      maxDecompressionRatio: 1000,
    });
    const fail = (err: Error) => {
      if (failed) return;
      failed = true;
      parser.abort(err);
      reject(err);
    };
    parser.on('entry', (entry: ReadEntry) => {
      if (failed) return void entry.resume();
      const problem = unsafePath(entry.path) ?? (entry.linkpath ? unsafePath(entry.linkpath) : undefined);
      if (problem) return fail(invalid(`tarball entry '${shorten(entry.path)}' ${problem}`));
      if (entry.type === 'File' || entry.type === 'OldFile' || entry.type === 'ContiguousFile') {
        fileCount++;
        unpackedSize += entry.size;
        if (unpackedSize > limits.maxUnpackedSize) {
          return fail(invalid(`the tarball unpacks to more than ${limits.maxUnpackedSize} bytes`));
        }
      }
      const path = normalizeEntryPath(entry.path);
      if (path === SHRINKWRAP_PATH) hasShrinkwrap = true;
      if (path === MANIFEST_PATH && entry.type === 'File') {
        if (manifestSeen) return fail(invalid(`the tarball holds ${MANIFEST_PATH} twice`));
        manifestSeen = true;
        if (entry.size > MAX_MANIFEST_SIZE) return fail(invalid(`${MANIFEST_PATH} is larger than 1 MiB`));
        const chunks: Buffer[] = [];
        entry.on('data', (chunk: Buffer) => chunks.push(chunk));
        entry.on('end', () => {
          manifestText = Buffer.concat(chunks).toString('utf8');
        });
        return;
      }
      entry.resume();
    });
    parser.on('error', (err: Error) => fail(invalid(`the tarball is not a valid gzip tar archive (${errorText(err)})`)));
    parser.on('abort', (err: Error) => fail(invalid(`the tarball is not a valid gzip tar archive (${errorText(err)})`)));
    parser.on('end', () => {
      if (!failed) resolve();
    });
    parser.end(bytes);
  });

  if (manifestText === undefined) throw invalid(`the tarball has no ${MANIFEST_PATH}`);
  let manifest: unknown;
  try {
    manifest = JSON.parse(manifestText.replace(/^\uFEFF/, ''));
  } catch {
    throw invalid(`${MANIFEST_PATH} in the tarball is not valid JSON`);
  }
  if (typeof manifest !== 'object' || manifest === null || Array.isArray(manifest)) {
    throw invalid(`${MANIFEST_PATH} in the tarball is not a JSON object`);
  }
  return { manifest: manifest as Record<string, unknown>, fileCount, unpackedSize, hasShrinkwrap };
}

/** Why a path could escape the directory it is extracted to, or undefined when it cannot. */
function unsafePath(path: string): string | undefined {
  if (path.includes('\0')) return 'contains a NUL character';
  const unified = path.replace(/\\/g, '/');
  if (unified.startsWith('/') || /^[a-zA-Z]:/.test(unified)) return 'has an absolute path';
  if (unified.split('/').includes('..')) return "leaves the package directory ('..')";
  return undefined;
}

function normalizeEntryPath(path: string): string {
  return path.replace(/\\/g, '/').replace(/^(\.\/)+/, '');
}

function invalid(details: string): ProtocolError {
  return new ProtocolError('VALIDATION_ERROR', details);
}

function errorText(err: Error): string {
  return shorten(err.message.replace(/^TAR_[A-Z_]+:\s*/, ''), 120);
}

function shorten(value: string, max = 100): string {
  return value.length > max ? `${value.slice(0, max)}…` : value;
}
