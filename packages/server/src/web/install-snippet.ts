/**
 * What installs a package, for each engine the version supports: the `pkg add` line (naming this
 * registry unless it is the client's default), npm's line, for Unity the Package Manager
 * window's steps and the `Packages/manifest.json` lines, for Godot and Unreal the tarball.
 */
import type { SupportedEngine } from '@pkg/protocol';

type Engine = SupportedEngine['engine'];

/**
 * The registry `pkg` uses when nothing names another (the client's `DEFAULT_REGISTRY`, what `npm
 * start` serves); a test checks that the two agree.
 */
export const CLIENT_DEFAULT_REGISTRY = 'http://127.0.0.1:4873';

export interface InstallCommand {
  /** The engines this same line installs for, in the order Unity, Godot, Unreal. */
  engines: Engine[];
  /** `In a Unity project`, `In a Unity or Godot 4 project`… */
  label: string;
  command: string;
}

export interface ScopedRegistry {
  name: string;
  url: string;
  scopes: string[];
}

export interface InstallSnippet {
  /** One line per distinct command (identical commands for several engines are one line). */
  commands: InstallCommand[];
  /** `pkg login --registry <url>` when this registry's reads need a token, else undefined. */
  login: string | undefined;
  /** npm's line (npm reads the same registry protocol). */
  npm: string;
  /** Unity packages only: the scoped registry to add in the Package Manager and the manifest lines. */
  unity: { registry: ScopedRegistry; name: string; version: string; manifest: string } | undefined;
  /** Godot and Unreal packages: the tarball, which holds the files under `package/`. */
  tarball: { url: string; file: string } | undefined;
}

const PROJECT_NAMES: Record<Engine, string> = {
  unity: 'Unity',
  godot: 'Godot 4',
  unreal: 'Unreal Engine 5',
};

export interface InstallInput {
  baseUrl: string;
  name: string;
  version: string;
  /** Every package this registry serves that the version needs, transitively. */
  scopes: Iterable<string>;
  engines: readonly SupportedEngine[];
  /** The file name of the version's tarball (`<name>-<version>.tgz`). */
  tarballFile: string;
  /** Reads need a token here (`readAccess: token`). */
  needsToken: boolean;
}

/**
 * The scoped registry is named after the registry's host name, and its scopes are the package
 * and every dependency this registry serves, exact names, sorted: the entry `pkg add` writes, so
 * Unity resolves all of them here and nothing else. Every line names the version the manifest
 * lines pin: without it `pkg add` picks the newest version for the project's editor, which may
 * be another one.
 */
export function installSnippet(input: InstallInput): InstallSnippet {
  const { baseUrl, name, version } = input;
  const engines = input.engines.length > 0 ? input.engines.map((e) => e.engine) : (['unity'] as Engine[]);
  const registryFlag = sameRegistry(baseUrl, CLIENT_DEFAULT_REGISTRY) ? '' : ` --registry ${baseUrl}`;
  const byCommand = new Map<string, Engine[]>();
  for (const engine of engines) {
    // One command today for every engine; kept per engine so that a future engine-specific flag splits the line.
    const command = `pkg add ${name}@${version}${registryFlag}`;
    byCommand.set(command, [...(byCommand.get(command) ?? []), engine]);
  }
  const commands = [...byCommand].map(([command, forEngines]) => ({
    engines: forEngines,
    label: `In ${forEngines[0] === 'unreal' ? 'an' : 'a'} ${joinOr(forEngines.map((e) => PROJECT_NAMES[e]))} project`,
    command,
  }));
  const registry: ScopedRegistry = {
    name: new URL(baseUrl).hostname,
    url: baseUrl,
    scopes: [...new Set([name, ...input.scopes])].sort(),
  };
  const manifest = { scopedRegistries: [registry], dependencies: { [name]: version } };
  const base = baseUrl.replace(/\/+$/, '');
  return {
    commands,
    login: input.needsToken ? `pkg login --registry ${baseUrl}` : undefined,
    npm: `npm install ${name}@${version} --registry ${baseUrl}`,
    unity: engines.includes('unity') ? { registry, name, version, manifest: JSON.stringify(manifest, null, 2) } : undefined,
    tarball:
      engines.includes('godot') || engines.includes('unreal')
        ? { url: `${base}/${name}/-/${encodeURIComponent(input.tarballFile)}`, file: input.tarballFile }
        : undefined,
  };
}

function sameRegistry(a: string, b: string): boolean {
  return a.replace(/\/+$/, '') === b.replace(/\/+$/, '');
}

/** `Unity`, `Unity or Godot 4`, `Unity, Godot 4 or Unreal Engine 5`. */
function joinOr(words: string[]): string {
  return words.length <= 1 ? (words[0] ?? '') : `${words.slice(0, -1).join(', ')} or ${words.at(-1)}`;
}
