import type { OptionSpec } from '../types.js';
import { ClientError } from '../../errors/client-errors.js';

export const ENGINE_OPTION: OptionSpec = {
  flags: '--engine <name>',
  description: 'use this engine (e.g. unity) instead of detecting it from the project layout',
};

export const ENGINE_VERSION_OPTION: OptionSpec = {
  flags: '--engine-version <version>',
  description: "the project's engine version (e.g. 5.3), for projects that do not say it or to check against another",
};

export const FORCE_OPTION: OptionSpec = {
  flags: '--force',
  description: 'Godot and Unreal: replace or remove package files changed by hand (they are backed up first)',
};

export const GLOBAL_OPTION: OptionSpec = {
  flags: '-g, --global',
  description: "act on the client's global packages instead of the project",
};

/**
 * What `--save [bool]` parsed to: commander hands an optional option-argument the next word,
 * so in `pkg update --save com.vendor.a` the package name arrives here and is given back.
 */
export type SaveValue = boolean | { save: true; packageName: string };

/** `--save` / `--save=true` / `--save=false`. */
export const SAVE_OPTION: OptionSpec = {
  flags: '--save [bool]',
  description: 'write the new versions to the manifest; --save=false only fetches and verifies them into the cache',
  default: true,
  parse(value: string): SaveValue {
    if (value === 'true') return true;
    if (value === 'false') return false;
    if (/^[a-z0-9]/.test(value) && value.includes('.')) return { save: true, packageName: value };
    throw new ClientError('INVALID_SAVE_VALUE', { value });
  },
};

/** The `--save` decision, and the package name commander may have taken for its value. */
export function saveOption(value: SaveValue | undefined): { save: boolean; packageName?: string } {
  if (value === undefined || typeof value === 'boolean') return { save: value ?? true };
  return { save: true, packageName: value.packageName };
}

/** Positional package names as a list (commander gives a variadic argument as an array). */
export function nameList(value: string | string[] | undefined): string[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}
