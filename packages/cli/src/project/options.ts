import type { OptionSpec } from '../commands/types.js';
import { ClientError } from '../output/errors.js';

export const ENGINE_OPTION: OptionSpec = {
  flags: '--engine <name>',
  description: 'use this engine (e.g. unity) instead of detecting it from the project layout',
};

export const GLOBAL_OPTION: OptionSpec = {
  flags: '-g, --global',
  description: "act on the client's global packages instead of the project",
};

/** `--save` / `--save=true` / `--save=false`. */
export const SAVE_OPTION: OptionSpec = {
  flags: '--save [bool]',
  description: 'write the new versions to the manifest; --save=false only fetches and verifies them into the cache',
  default: true,
  parse(value: string) {
    if (value === 'true') return true;
    if (value === 'false') return false;
    throw new ClientError('USAGE', { message: `Invalid --save value '${value}': use --save or --save=false`, hint: null });
  },
};

/** Positional package names as a list (commander gives a variadic argument as an array). */
export function nameList(value: string | string[] | undefined): string[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}
