/**
 * What installs a package: a `pkg add` line for each engine the version supports and, for a
 * Unity package, the lines of its `Packages/manifest.json`.
 */
import type { SupportedEngine } from '@pkg/protocol';

export interface InstallCommand {
  engine: SupportedEngine['engine'];
  /** `Unity project`, `Godot 4 project`, `Unreal Engine 5 project`. */
  label: string;
  command: string;
}

export interface InstallSnippet {
  /** One line per engine, in the order Unity, Godot, Unreal. */
  commands: InstallCommand[];
  /** A `Packages/manifest.json` fragment (the scoped registry entry plus the dependency); Unity packages only. */
  manifest: string | undefined;
}

const PROJECT_LABELS: Record<SupportedEngine['engine'], string> = {
  unity: 'In a Unity project',
  godot: 'In a Godot 4 project',
  unreal: 'In an Unreal Engine 5 project',
};

/**
 * The scoped registry is named after the registry's host name, and its scopes are the package
 * and every dependency this registry serves, exact names, sorted: the entry `pkg add` writes, so
 * Unity resolves all of them here and nothing else. Godot and Unreal projects keep their
 * packages in `pkg.json`, which only `pkg` reads, so they get the command alone.
 */
export function installSnippet(
  baseUrl: string,
  name: string,
  version: string,
  scopes: Iterable<string>,
  engines: readonly SupportedEngine[] = [{ engine: 'unity' }],
): InstallSnippet {
  // Each command names the version the manifest lines pin: without it `pkg add` picks the newest
  // version for the project's editor, which may be another one.
  const commands = engines.map((e) => ({
    engine: e.engine,
    label: PROJECT_LABELS[e.engine],
    command: `pkg add ${name}@${version}`,
  }));
  const unity = engines.some((e) => e.engine === 'unity');
  const manifest = {
    scopedRegistries: [{ name: new URL(baseUrl).hostname, url: baseUrl, scopes: [...new Set([name, ...scopes])].sort() }],
    dependencies: { [name]: version },
  };
  return { commands, manifest: unity ? JSON.stringify(manifest, null, 2) : undefined };
}
