/** `pkg publish`: read and check the folder, pack it, report it, then (unless --dry-run) upload it. */
import path from 'node:path';
import semver from 'semver';
import type { CommandContext } from '../context.js';
import { parseRegistryUrl, registryEndpoint, type RegistryUrl } from '../http/registry-url.js';
import { ClientError } from '../errors/client-errors.js';
import { SEPARATOR } from '../output/format.js';
import type { CommandResult } from '../output/reporter.js';
import { transferProgress } from '../output/transfer-progress.js';
import { checkPackage, isCheckedFile, type PackageEngine } from './package-checks.js';
import { packFileList, packTarball, type PackResult } from './pack.js';
import { publishBody } from './publish-body.js';
import { readTarballContents, type TarballContents } from './tarball-contents.js';

export interface PublishOptions {
  registry?: string;
  tag?: string;
  dryRun?: boolean;
}

/** The registry limits a readme to 1 MiB; a longer one is left out rather than refused. */
const MAX_README = 1024 * 1024;

/** Sizes as npm prints them: decimal units, one decimal. */
export function npmSize(bytes: number): string {
  if (bytes < 1000) return `${bytes}B`;
  if (bytes < 1000 * 1000) return `${(bytes / 1000).toFixed(1)}kB`;
  return `${(bytes / (1000 * 1000)).toFixed(1)}MB`;
}

async function readManifest(ctx: CommandContext, folder: string): Promise<Record<string, unknown>> {
  const file = path.join(folder, 'package.json');
  let text: string;
  try {
    text = await ctx.deps.fs.readFile(file, 'utf8');
  } catch (err) {
    throw new ClientError('NO_PACKAGE_JSON', { folder }, { cause: err });
  }
  try {
    const value: unknown = JSON.parse(text.replace(/^\uFEFF/, ''));
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error('it is not a JSON object');
    return value as Record<string, unknown>;
  } catch (err) {
    throw new ClientError('PACKAGE_JSON_INVALID', { file, problem: (err as Error).message });
  }
}

// npm refuses a tag that reads as a version or range: `pkg add name@<tag>` would be ambiguous.
const isTag = (tag: string) => /^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(tag) && semver.validRange(tag) === null;

function checkTag(tag: string): void {
  if (!isTag(tag)) {
    throw new ClientError('INVALID_TAG', { tag });
  }
}

/** package.json's `publishConfig` as npm reads it for a publish: its registry and tag. */
interface PublishConfig {
  registry?: RegistryUrl;
  tag?: string;
}

function publishConfigOf(manifest: Record<string, unknown>, folder: string): PublishConfig {
  const config = manifest.publishConfig;
  if (config === undefined) return {};
  const invalid = (problem: string) => new ClientError('PUBLISH_CONFIG_INVALID', { folder, problem });
  if (typeof config !== 'object' || config === null || Array.isArray(config)) throw invalid('publishConfig is not an object');
  const { registry, tag } = config as Record<string, unknown>;
  const result: PublishConfig = {};
  if (registry !== undefined) {
    if (typeof registry !== 'string') throw invalid('publishConfig.registry is not a string');
    try {
      result.registry = parseRegistryUrl(registry);
    } catch (err) {
      throw invalid(`publishConfig.registry: ${(err as Error).message}`);
    }
  }
  if (tag !== undefined) {
    if (typeof tag !== 'string' || !isTag(tag)) {
      throw invalid(
        `publishConfig.tag '${typeof tag === 'string' ? tag : JSON.stringify(tag)}' is not a dist-tag (a word such as beta, not a version or range)`,
      );
    }
    result.tag = tag;
  }
  return result;
}

/** A package ready to send: checked, with its tarball on disk. */
interface PreparedPackage {
  manifest: Record<string, unknown> & { name: string; version: string };
  publishConfig: PublishConfig;
  packed: PackResult;
  readme?: string;
  engines: PackageEngine[];
  warnings: string[];
}

const README = /^readme(\.(md|markdown|txt))?$/i;
const isTarballPath = (file: string) => /\.(tgz|tar\.gz)$/i.test(file);

function throwOnProblems(action: 'publish' | 'pack', target: string, problems: string[], engines: PackageEngine[]): void {
  if (problems.length === 0) return;
  const [first, ...rest] = problems;
  throw new ClientError(action === 'publish' ? 'PACKAGE_INVALID' : 'PACK_INVALID', {
    folder: target,
    problem: String(first),
    more: rest.length > 0 ? `Also: ${rest.join('; ')}. ` : '',
    advice: engines.includes('unity') ? ' (Unity writes .meta files when it imports the folder)' : '',
  });
}

/** Reads, checks and packs a folder into `work` as npm would. */
async function prepareFolder(
  ctx: CommandContext,
  folder: string,
  work: string,
  action: 'publish' | 'pack',
): Promise<PreparedPackage> {
  const manifest = await readManifest(ctx, folder);
  const publishConfig = publishConfigOf(manifest, folder);
  const files = await packFileList(folder, manifest);
  const texts = new Map<string, string>();
  for (const f of files.filter((f) => isCheckedFile(f.path))) {
    texts.set(f.path, await ctx.deps.fs.readFile(path.join(folder, f.path), 'utf8'));
  }
  const checks = checkPackage(
    manifest,
    files.map((f) => f.path),
    (file) => texts.get(file),
  );
  throwOnProblems(action, folder, checks.problems, checks.engines);
  const named = manifest as PreparedPackage['manifest'];
  const packed = await packTarball(folder, files, path.join(work, `${named.name}-${named.version}.tgz`));
  const readmeFile = files.find((f) => README.test(f.path));
  const readme =
    readmeFile && readmeFile.size <= MAX_README
      ? await ctx.deps.fs.readFile(path.join(folder, readmeFile.path), 'utf8')
      : undefined;
  return {
    manifest: named,
    publishConfig,
    packed,
    ...(readme !== undefined ? { readme } : {}),
    engines: checks.engines,
    warnings: checks.warnings,
  };
}

/** Reads and checks a prepared tarball, which is then sent byte for byte. */
async function prepareTarball(file: string): Promise<PreparedPackage> {
  let contents: TarballContents;
  try {
    contents = await readTarballContents(file, (p) => isCheckedFile(p) || README.test(p));
  } catch (err) {
    throw new ClientError('PACKAGE_INVALID', {
      folder: file,
      problem: `it is not a gzipped tarball: ${(err as Error).message}`,
      more: '',
      advice: '',
    });
  }
  const problems: string[] = [];
  if (contents.strayEntries.length > 0) {
    problems.push(`entries outside package/ or not files: ${contents.strayEntries.slice(0, 5).join(', ')}`);
  }
  if (contents.manifestText === null) {
    throwOnProblems('publish', file, [...problems, 'it holds no package/package.json'], []);
  }
  let manifest: Record<string, unknown>;
  try {
    const value: unknown = JSON.parse(contents.manifestText!.replace(/^\uFEFF/, ''));
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error('it is not a JSON object');
    manifest = value as Record<string, unknown>;
  } catch (err) {
    throw new ClientError('PACKAGE_JSON_INVALID', { file: `${file}: package/package.json`, problem: (err as Error).message });
  }
  const publishConfig = publishConfigOf(manifest, file);
  const checks = checkPackage(
    manifest,
    contents.packed.files.map((f) => f.path),
    (p) => contents.texts.get(p),
  );
  throwOnProblems('publish', file, [...problems, ...checks.problems], checks.engines);
  const readmeFile = contents.packed.files.find((f) => README.test(f.path));
  const readme = readmeFile && readmeFile.size <= MAX_README ? contents.texts.get(readmeFile.path) : undefined;
  return {
    manifest: manifest as PreparedPackage['manifest'],
    publishConfig,
    packed: contents.packed,
    ...(readme !== undefined ? { readme } : {}),
    engines: checks.engines,
    warnings: checks.warnings,
  };
}

async function isFile(ctx: CommandContext, file: string): Promise<boolean> {
  try {
    return (await ctx.deps.fs.stat(file)).isFile();
  } catch {
    return false;
  }
}

/** `pkg publish [folder | file.tgz]`. */
export async function publishFolder(
  ctx: CommandContext,
  targetArg: string | undefined,
  options: PublishOptions,
): Promise<CommandResult> {
  if (options.tag !== undefined) checkTag(options.tag);
  const target = path.resolve(ctx.deps.cwd, targetArg ?? '.');
  const fromTarball = isTarballPath(target) && (await isFile(ctx, target));
  const work = await ctx.deps.fs.mkdtemp(path.join(ctx.deps.tmpdir, 'pkg-publish-'));
  try {
    const prepared = fromTarball ? await prepareTarball(target) : await prepareFolder(ctx, target, work, 'publish');
    for (const warning of prepared.warnings) ctx.reporter.warn(warning);
    const { manifest, publishConfig, packed, readme } = prepared;
    // As npm: the command line wins over publishConfig, which wins over the environment and config.
    const tag = options.tag ?? publishConfig.tag ?? 'latest';
    const fromPublishConfig = options.registry === undefined && publishConfig.registry !== undefined;
    const registry = fromPublishConfig ? publishConfig.registry! : await ctx.registryUrl(options.registry);
    const { name, version } = manifest;
    const filename = `${name}-${version}.tgz`;
    if (!options.dryRun) {
      const client = await ctx.registry(registry);
      const progress = transferProgress(ctx.reporter, ctx.deps.stderr.isTTY, packed.size, `${name}@${version}`);
      try {
        const body = publishBody(
          {
            manifest,
            tag,
            tarball: packed,
            tarballUrl: registryEndpoint(registry, `/${name}/-/${filename}`).toString(),
            ...(readme !== undefined ? { readme } : {}),
          },
          (bytes) => progress.advance(bytes),
        );
        await client.publish(name, body);
      } finally {
        progress.done();
      }
    }
    return publishReport({
      name,
      version,
      tag,
      registry,
      fromPublishConfig,
      filename,
      packed,
      engines: prepared.engines,
      warnings: prepared.warnings,
      tarball: fromTarball ? target : null,
      dryRun: options.dryRun ?? false,
    });
  } finally {
    await ctx.deps.fs.rm(work, { recursive: true, force: true });
  }
}

export interface PackOptions {
  packDestination?: string;
  dryRun?: boolean;
}

/** `pkg pack [folder]`: the exact tarball `pkg publish` would send, written to a file. */
export async function packFolder(
  ctx: CommandContext,
  folderArg: string | undefined,
  options: PackOptions,
): Promise<CommandResult> {
  const folder = path.resolve(ctx.deps.cwd, folderArg ?? '.');
  const destination = path.resolve(ctx.deps.cwd, options.packDestination ?? '.');
  const work = await ctx.deps.fs.mkdtemp(path.join(ctx.deps.tmpdir, 'pkg-pack-'));
  try {
    const prepared = await prepareFolder(ctx, folder, work, 'pack');
    for (const warning of prepared.warnings) ctx.reporter.warn(warning);
    const { name, version } = prepared.manifest;
    const filename = `${name}-${version}.tgz`;
    const file = path.join(destination, filename);
    if (!options.dryRun) {
      await ctx.deps.fs.mkdir(destination, { recursive: true });
      // Copied beside the target, then renamed: a reader never sees half a tarball.
      const temp = path.join(destination, `.${filename}.${process.pid}.tmp`);
      try {
        await ctx.deps.fs.copyFile(prepared.packed.file, temp);
        await ctx.deps.fs.rename(temp, file);
      } catch (err) {
        await ctx.deps.fs.rm(temp, { force: true });
        throw err;
      }
    }
    return packReport({ ...prepared, name, version, filename, file, dryRun: options.dryRun ?? false });
  } finally {
    await ctx.deps.fs.rm(work, { recursive: true, force: true });
  }
}

const ENGINE_LABELS: Record<PackageEngine, string> = { unity: 'Unity', godot: 'Godot', unreal: 'Unreal Engine' };

function contentLines(packed: PackResult, name: string, version: string, filename: string): string[] {
  const sizes = packed.files.map((f) => npmSize(f.size));
  const width = Math.max(...sizes.map((s) => s.length));
  const details: [string, string][] = [
    ['name', name],
    ['version', version],
    ['filename', filename],
    ['package size', npmSize(packed.size)],
    ['unpacked size', npmSize(packed.unpackedSize)],
    ['shasum', packed.shasum],
    ['integrity', packed.integrity],
    ['total files', String(packed.files.length)],
  ];
  return [
    'Tarball Contents:',
    ...packed.files.map((f, i) => `  ${sizes[i]!.padStart(width)}  ${f.path}`),
    '',
    'Tarball Details:',
    ...details.map(([key, value]) => `  ${`${key}:`.padEnd(15)}${value}`),
  ];
}

function tarballJson(packed: PackResult, engines: PackageEngine[], warnings: string[]): Record<string, unknown> {
  return {
    engines,
    files: packed.files,
    entry_count: packed.files.length,
    size: packed.size,
    unpacked_size: packed.unpackedSize,
    shasum: packed.shasum,
    integrity: packed.integrity,
    warnings,
  };
}

interface PackReportInput {
  name: string;
  version: string;
  filename: string;
  file: string;
  packed: PackResult;
  engines: PackageEngine[];
  warnings: string[];
  dryRun: boolean;
}

function packReport(input: PackReportInput): CommandResult {
  const { name, version, filename, file, packed, engines, warnings, dryRun } = input;
  const message = dryRun ? `Dry run: ${file} was not written` : `Wrote ${file}`;
  return {
    json: { name, version, filename, file, ...tarballJson(packed, engines, warnings), dry_run: dryRun, message },
    text: [
      dryRun ? 'Pack Preview' : 'Pack',
      SEPARATOR,
      `Package: ${name}@${version}`,
      `Engines: ${engines.map((e) => ENGINE_LABELS[e]).join(', ')}`,
      '',
      ...contentLines(packed, name, version, filename),
      '',
      message,
    ],
  };
}

interface PublishReportInput {
  name: string;
  version: string;
  tag: string;
  registry: string;
  /** The registry is package.json's publishConfig.registry. */
  fromPublishConfig: boolean;
  filename: string;
  packed: PackResult;
  engines: PackageEngine[];
  warnings: string[];
  /** The prepared tarball sent as it is; null when the folder was packed. */
  tarball: string | null;
  dryRun: boolean;
}

function publishReport(input: PublishReportInput): CommandResult {
  const { name, version, tag, registry, fromPublishConfig, filename, packed, engines, warnings, tarball, dryRun } = input;
  const message = dryRun
    ? `Dry run: ${name}@${version} was not published`
    : `Published ${name}@${version} to ${registry} with tag ${tag}`;
  const text = [
    dryRun ? 'Publish Preview' : 'Publish',
    SEPARATOR,
    `Package: ${name}@${version}`,
    `Engines: ${engines.map((e) => ENGINE_LABELS[e]).join(', ')}`,
    `Registry: ${registry}${fromPublishConfig ? ' (publishConfig.registry)' : ''}`,
    `Tag: ${tag}`,
    ...(tarball !== null ? [`Tarball: ${tarball} (sent as it is)`] : []),
    '',
    ...contentLines(packed, name, version, filename),
    '',
    message,
  ];
  if (dryRun) text.push('Run without --dry-run to publish.');
  return {
    json: {
      name,
      version,
      tag,
      registry,
      filename,
      ...(tarball !== null ? { tarball } : {}),
      ...tarballJson(packed, engines, warnings),
      dry_run: dryRun,
      published: !dryRun,
      message,
    },
    text,
  };
}
