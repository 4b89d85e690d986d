/** `pkg publish`: read and check the folder, pack it, report it, then (unless --dry-run) upload it. */
import path from 'node:path';
import semver from 'semver';
import type { CommandContext } from '../context.js';
import { parseRegistryUrl, registryEndpoint, type RegistryUrl } from '../http/registry-url.js';
import { ClientError } from '../errors/client-errors.js';
import { SEPARATOR } from '../output/format.js';
import type { CommandResult } from '../output/reporter.js';
import { transferProgress } from '../output/transfer-progress.js';
import { packFileList, packTarball, type PackResult } from './pack.js';
import { publishBody } from './publish-body.js';
import { manifestProblems, metaProblems } from './validate.js';

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
      throw invalid(`publishConfig.tag '${String(tag)}' is not a dist-tag (a word such as beta, not a version or range)`);
    }
    result.tag = tag;
  }
  return result;
}

export async function publishFolder(
  ctx: CommandContext,
  folderArg: string | undefined,
  options: PublishOptions,
): Promise<CommandResult> {
  if (options.tag !== undefined) checkTag(options.tag);
  const folder = path.resolve(ctx.deps.cwd, folderArg ?? '.');
  const manifest = await readManifest(ctx, folder);
  // As npm: the command line wins over publishConfig, which wins over the environment and config.
  const publishConfig = publishConfigOf(manifest, folder);
  const tag = options.tag ?? publishConfig.tag ?? 'latest';
  const files = await packFileList(folder, manifest);
  const problems = [...manifestProblems(manifest), ...metaProblems(files.map((f) => f.path))];
  if (problems.length > 0) {
    const [first, ...rest] = problems;
    throw new ClientError('PACKAGE_INVALID', {
      folder,
      problem: String(first),
      more: rest.length > 0 ? `Also: ${rest.join('; ')}. ` : '',
    });
  }
  const fromPublishConfig = options.registry === undefined && publishConfig.registry !== undefined;
  const registry = fromPublishConfig ? publishConfig.registry! : await ctx.registryUrl(options.registry);
  const name = manifest.name as string;
  const version = manifest.version as string;

  const work = await ctx.deps.fs.mkdtemp(path.join(ctx.deps.tmpdir, 'pkg-publish-'));
  try {
    const packed = await packTarball(folder, files, path.join(work, 'package.tgz'));
    const filename = `${name}-${version}.tgz`;
    const readmeFile = files.find((f) => /^readme(\.(md|markdown|txt))?$/i.test(f.path));
    const readme =
      readmeFile && readmeFile.size <= MAX_README
        ? await ctx.deps.fs.readFile(path.join(folder, readmeFile.path), 'utf8')
        : undefined;
    if (!options.dryRun) {
      const client = await ctx.registry(registry);
      const progress = transferProgress(ctx.reporter, ctx.deps.stderr.isTTY, packed.size, `${name}@${version}`);
      try {
        const body = publishBody(
          {
            manifest: manifest as Record<string, unknown> & { name: string; version: string },
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
    return publishReport({ name, version, tag, registry, fromPublishConfig, filename, packed, dryRun: options.dryRun ?? false });
  } finally {
    await ctx.deps.fs.rm(work, { recursive: true, force: true });
  }
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
  dryRun: boolean;
}

function publishReport(input: PublishReportInput): CommandResult {
  const { name, version, tag, registry, fromPublishConfig, filename, packed, dryRun } = input;
  const sizes = packed.files.map((f) => npmSize(f.size));
  const width = Math.max(...sizes.map((s) => s.length));
  const message = dryRun
    ? `Dry run: ${name}@${version} was not published`
    : `Published ${name}@${version} to ${registry} with tag ${tag}`;
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
  const text = [
    dryRun ? 'Publish Preview' : 'Publish',
    SEPARATOR,
    `Package: ${name}@${version}`,
    `Registry: ${registry}${fromPublishConfig ? ' (publishConfig.registry)' : ''}`,
    `Tag: ${tag}`,
    '',
    'Tarball Contents:',
    ...packed.files.map((f, i) => `  ${sizes[i]!.padStart(width)}  ${f.path}`),
    '',
    'Tarball Details:',
    ...details.map(([key, value]) => `  ${`${key}:`.padEnd(15)}${value}`),
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
      files: packed.files,
      entry_count: packed.files.length,
      size: packed.size,
      unpacked_size: packed.unpackedSize,
      shasum: packed.shasum,
      integrity: packed.integrity,
      dry_run: dryRun,
      published: !dryRun,
      message,
    },
    text,
  };
}
