/** `pkg cache ls|verify|clean`: the tarball cache as the user sees it. */
import path from 'node:path';
import { checkPackageName } from '@pkg/protocol';
import type { CommandContext } from '../context.js';
import { ClientError } from '../errors/client-errors.js';
import { SEPARATOR, plural } from '../output/format.js';
import type { CommandResult } from '../output/reporter.js';
import { megabytes } from '../output/transfer-progress.js';
import { DocumentCache } from '../http/document-cache.js';
import { readCache, verifyEntry, type CacheEntry } from './cache-contents.js';

const total = (entries: { size: number }[]) => entries.reduce((sum, e) => sum + e.size, 0);
const entryJson = (e: CacheEntry) => ({ package: e.package, version: e.version, size: e.size, path: e.path });

export async function cacheAction(
  ctx: CommandContext,
  action: 'ls' | 'verify' | 'clean',
  names: string[],
): Promise<CommandResult> {
  for (const name of names) {
    const check = checkPackageName(name);
    if (!check.ok) throw new ClientError('INVALID_PACKAGE_NAME', { name, rule: check.rule });
  }
  if (action === 'verify' && names.length > 0) {
    throw new ClientError('USAGE', { problem: 'pkg cache verify takes no package names', command: 'cache ' });
  }
  const dir = path.join(ctx.paths.cacheDir, 'tarballs');
  const all = await readCache(ctx.deps.fs, dir);
  const only = <T extends { package: string }>(entries: T[]) =>
    names.length === 0 ? entries : entries.filter((e) => names.includes(e.package));
  const tarballs = only(all.tarballs);
  const partial = only(all.partial);
  if (action === 'ls') return listReport(dir, tarballs, partial);
  if (action === 'clean') {
    const leftovers = names.length === 0 ? all.leftovers : [];
    for (const entry of [...tarballs, ...partial, ...leftovers]) {
      await ctx.deps.fs.rm(entry.path, { force: true });
      await ctx.deps.fs.rm(`${entry.path}.integrity`, { force: true });
    }
    // The package documents kept with them go too (of the named packages, or all).
    const documents = await new DocumentCache(ctx.deps.fs, ctx.paths.cacheDir, ctx.deps.now).clear(names);
    const freed = total([...tarballs, ...partial, ...leftovers]);
    const message = `Removed ${plural(tarballs.length, 'tarball')} and ${plural(partial.length + leftovers.length, 'partial download')}, ${megabytes(freed)}`;
    return {
      json: {
        cache_dir: dir,
        removed: tarballs.map(entryJson),
        removed_partial: partial.map(entryJson),
        removed_documents: documents,
        freed_bytes: freed,
        message,
      },
      text: [message],
    };
  }
  const verdicts = await Promise.all(tarballs.map(async (e) => ({ entry: e, verdict: await verifyEntry(ctx.deps.fs, e) })));
  const corrupt = verdicts.filter((v) => v.verdict === 'corrupt').map((v) => v.entry);
  const unrecorded = verdicts.filter((v) => v.verdict === 'unrecorded').map((v) => v.entry);
  // A corrupt copy is useless and a fetch would replace it anyway; leftovers are from killed runs.
  for (const entry of [...corrupt, ...all.leftovers]) {
    await ctx.deps.fs.rm(entry.path, { force: true });
    if ('version' in entry) await ctx.deps.fs.rm(`${entry.path}.integrity`, { force: true });
  }
  const verified = tarballs.length - corrupt.length - unrecorded.length;
  const message = `Verified ${plural(verified, 'tarball')}; removed ${plural(corrupt.length, 'corrupt tarball')} and ${plural(all.leftovers.length, 'leftover file')}`;
  return {
    json: {
      cache_dir: dir,
      verified,
      corrupt: corrupt.map(entryJson),
      unrecorded: unrecorded.map(entryJson),
      leftovers_removed: all.leftovers.map((l) => l.path),
      message,
    },
    text: [
      'Cache Verify',
      SEPARATOR,
      `Cache: ${dir}`,
      ...(corrupt.length > 0
        ? ['', 'Corrupt (removed; the next install downloads them again):', ...corrupt.map((e) => `  ${e.package}@${e.version}`)]
        : []),
      ...(unrecorded.length > 0
        ? [
            '',
            'No integrity recorded (kept; checked against the registry when next used):',
            ...unrecorded.map((e) => `  ${e.package}@${e.version}`),
          ]
        : []),
      '',
      message,
    ],
  };
}

function listReport(dir: string, tarballs: CacheEntry[], partial: CacheEntry[]): CommandResult {
  const row = (e: CacheEntry) => `  ${`${e.package}@${e.version}`.padEnd(40)} ${megabytes(e.size).padStart(10)}`;
  const message = `${plural(tarballs.length, 'tarball')}, ${megabytes(total(tarballs))}; ${plural(partial.length, 'partial download')}, ${megabytes(total(partial))}`;
  return {
    json: {
      cache_dir: dir,
      tarballs: tarballs.map(entryJson),
      partial: partial.map(entryJson),
      total_bytes: total(tarballs) + total(partial),
      message,
    },
    text: [
      'Cache',
      SEPARATOR,
      `Cache: ${dir}`,
      ...(tarballs.length > 0 ? ['', 'Tarballs:', ...tarballs.map(row)] : []),
      ...(partial.length > 0 ? ['', 'Partial downloads (resumed by the next install):', ...partial.map(row)] : []),
      '',
      message,
    ],
  };
}
