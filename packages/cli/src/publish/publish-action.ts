/** `pkg publish`: read and check the folder, pack it, report it, then (unless --dry-run) upload it. */
import path from 'node:path';
import semver from 'semver';
import type { CommandContext } from '../context.js';
import { registryEndpoint } from '../http/registry-url.js';
import { ClientError } from '../output/errors.js';
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
    throw new ClientError('PACKAGE_INVALID', {
      message: `No package.json in ${folder}`,
      hint: 'Run pkg publish in the package folder, or name it: pkg publish <folder>.',
      cause: err,
    });
  }
  try {
    const value: unknown = JSON.parse(text.replace(/^\uFEFF/, ''));
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error('it is not a JSON object');
    return value as Record<string, unknown>;
  } catch (err) {
    throw new ClientError('PACKAGE_INVALID', { message: `${file} is invalid: ${(err as Error).message}` });
  }
}

function checkTag(tag: string): void {
  // npm refuses a tag that reads as a version or range: `pkg add name@<tag>` would be ambiguous.
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(tag) || semver.validRange(tag) !== null) {
    throw new ClientError('USAGE', {
      message: `Invalid --tag '${tag}': a dist-tag is a word such as beta, and cannot look like a version or range`,
      hint: null,
    });
  }
}

export async function publishFolder(
  ctx: CommandContext,
  folderArg: string | undefined,
  options: PublishOptions,
): Promise<CommandResult> {
  const tag = options.tag ?? 'latest';
  checkTag(tag);
  const folder = path.resolve(ctx.deps.cwd, folderArg ?? '.');
  const manifest = await readManifest(ctx, folder);
  const files = await packFileList(folder, manifest);
  const problems = [...manifestProblems(manifest), ...metaProblems(files.map((f) => f.path))];
  if (problems.length > 0) {
    const [first, ...rest] = problems;
    throw new ClientError('PACKAGE_INVALID', {
      message: `Cannot publish ${folder}: ${first}`,
      hint: `${rest.length > 0 ? `Also: ${rest.join('; ')}. ` : ''}Fix the package (Unity writes .meta files when it imports the folder), then run pkg publish again; --dry-run checks without publishing.`,
    });
  }
  const registry = await ctx.registryUrl(options.registry);
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
    return publishReport({ name, version, tag, registry, filename, packed, dryRun: options.dryRun ?? false });
  } finally {
    await ctx.deps.fs.rm(work, { recursive: true, force: true });
  }
}

interface PublishReportInput {
  name: string;
  version: string;
  tag: string;
  registry: string;
  filename: string;
  packed: PackResult;
  dryRun: boolean;
}

function publishReport(input: PublishReportInput): CommandResult {
  const { name, version, tag, registry, filename, packed, dryRun } = input;
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
    `Registry: ${registry}`,
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
