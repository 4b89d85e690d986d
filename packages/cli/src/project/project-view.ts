/**
 * The registries of the project around the working directory, for the commands that are not
 * about the project but must see it as the others do (`info`, `search`): which registry serves
 * a name, and every registry the project names. Outside a project there is none, and those
 * commands use the registry in effect alone.
 */
import type { CommandContext } from '../context.js';
import { selectEngine } from '../engines/index.js';
import { normalizeRegistryUrl } from '../engines/registry-url.js';
import { ClientError } from '../errors/client-errors.js';
import { projectFs } from '../files/project-fs.js';
import { parseRegistryUrl, type RegistryUrl } from '../http/registry-url.js';
import { RegistryRouting } from '../resolve/registry-routing.js';

export interface ProjectView {
  /** The manifest, relative to the project: how messages name where a registry comes from. */
  manifest: string;
  /** The registry that serves `name`; null when it is the engine maker's, which pkg does not ask. */
  registryFor(name: string): string | null;
  /** Every registry pkg may ask for this project, the registry in effect first. */
  registries: string[];
}

/** The project's view, or null outside a project (or when its manifest cannot be read: the project commands report that). */
export async function projectView(ctx: CommandContext, inEffect: RegistryUrl): Promise<ProjectView | null> {
  const fs = projectFs(ctx.deps.fs);
  let found;
  try {
    found = await selectEngine(ctx.deps.cwd, fs);
  } catch (err) {
    if (err instanceof ClientError) return null;
    throw err;
  }
  const { engine, project } = found;
  let manifest;
  try {
    manifest = (await engine.readManifest(project, fs)).manifest;
  } catch (err) {
    if (!(err instanceof ClientError)) throw err;
    ctx.reporter.warn(`${err.message}; only ${inEffect} is asked.`);
    return null;
  }
  const routing = new RegistryRouting(manifest, {
    usesScopedRegistries: engine.usesScopedRegistries,
    ...(engine.ownRegistry ? { ownRegistry: engine.ownRegistry } : {}),
    fallback: inEffect,
  });
  const urls = [inEffect, ...manifest.scopedRegistries.map((e) => e.url), routing.defaultRegistry]
    .map((u) => normalizeRegistryUrl(u))
    .filter((u) => !routing.isUnqueried(u));
  return {
    manifest: engine.manifestRelativePath,
    registryFor(name) {
      const url = routing.route(name).url;
      return routing.isUnqueried(url) ? null : url;
    },
    registries: [...new Set(urls)],
  };
}

/**
 * A registry URL a project names, checked as `--registry` is; a plain-http one beyond this
 * machine is refused with what to do about it, for its own packages only.
 */
export function projectRegistryUrl(url: string, manifest: string): RegistryUrl {
  try {
    return parseRegistryUrl(url);
  } catch (err) {
    if (err instanceof ClientError && err.code === 'INSECURE_REGISTRY') {
      throw new ClientError('INSECURE_PROJECT_REGISTRY', { host: new URL(url).host, url, manifest }, { cause: err });
    }
    throw err;
  }
}
