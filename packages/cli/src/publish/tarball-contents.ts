/**
 * What a prepared tarball (`pkg publish <file.tgz>`) holds, read without unpacking it: its
 * `package/package.json`, its files and the few small texts the checks read. The tarball itself
 * is then sent as it is: a Unity-signed package carries a signature over its exact contents.
 */
import { measureFile, type PackedFile, type PackResult } from './pack.js';

/** Texts larger than this are not read: a package.json, plugin.cfg or .uplugin is far smaller. */
const MAX_TEXT = 1024 * 1024;

export interface TarballContents {
  /** `package/package.json`, unparsed; null when the tarball has none. */
  manifestText: string | null;
  packed: PackResult;
  /** The texts asked for by `wanted`, by path relative to `package/`. */
  texts: Map<string, string>;
  /** Entries that are not under `package/`, or are neither files nor folders. */
  strayEntries: string[];
}

export async function readTarballContents(file: string, wanted: (path: string) => boolean): Promise<TarballContents> {
  const { t } = await import('tar');
  const files: PackedFile[] = [];
  const texts = new Map<string, string>();
  const strayEntries: string[] = [];
  let manifestText: string | null = null;
  await t({
    file,
    strict: true,
    onReadEntry(entry) {
      const entryPath = entry.path.replace(/\\/g, '/');
      if (!entryPath.startsWith('package/') || (entry.type !== 'File' && entry.type !== 'Directory')) {
        strayEntries.push(entryPath);
        entry.resume();
        return;
      }
      if (entry.type === 'Directory') return;
      const relative = entryPath.slice('package/'.length);
      files.push({ path: relative, size: entry.size });
      const keep = relative === 'package.json' || wanted(relative);
      if (!keep || entry.size > MAX_TEXT) {
        entry.resume();
        return;
      }
      const chunks: Buffer[] = [];
      entry.on('data', (chunk: Buffer) => chunks.push(chunk));
      entry.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        if (relative === 'package.json') manifestText = text;
        else texts.set(relative, text);
      });
    },
  });
  files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return {
    manifestText,
    packed: { file, files, ...(await measureFile(file)), unpackedSize: files.reduce((sum, f) => sum + f.size, 0) },
    texts,
    strayEntries,
  };
}
