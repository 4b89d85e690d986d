import type { SupportedEngine } from '@pkg/protocol';
/** Shared pieces of the human output. */
export const SEPARATOR = '─'.repeat(40);

/** `text` with `indent` spaces before every line. */
export function indent(text: string, spaces = 2): string {
  const pad = ' '.repeat(spaces);
  return text
    .split('\n')
    .map((line) => (line.length > 0 ? pad + line : line))
    .join('\n');
}

/** Author as free text: a string as given, or `name <email>` from an npm person object. */
export function personText(person: unknown): string {
  if (typeof person === 'string') return person;
  if (person && typeof person === 'object') {
    const { name, email } = person as { name?: unknown; email?: unknown };
    if (typeof name === 'string') return typeof email === 'string' && email ? `${name} <${email}>` : name;
  }
  return '';
}

const ENGINE_NAMES = { unity: 'Unity', godot: 'Godot', unreal: 'Unreal Engine' } as const;

/** `Unity 2021.3`, `Unity (any)`, `Godot 4.2 or newer`, `Unreal Engine 5.3 only`, `Godot 4.2 to 4.3`. */
export function supportedEngineText(e: SupportedEngine): string {
  const name = ENGINE_NAMES[e.engine];
  if (e.min === undefined) return `${name} (any)`;
  if (e.engine === 'unity') return `${name} ${e.min}`;
  if (e.max === undefined) return `${name} ${e.min} or newer`;
  return e.max === e.min ? `${name} ${e.min} only` : `${name} ${e.min} to ${e.max}`;
}

/** `1 package`, `3 packages`: the count with its noun, singular only for exactly one. */
export function plural(count: number, singular: string, pluralForm = `${singular}s`): string {
  return `${count} ${count === 1 ? singular : pluralForm}`;
}

/**
 * The one status vocabulary of every --json (update, list, install): the value a script
 * compares, and the words a person reads.
 */
export type PackageStatus =
  | 'latest'
  | 'newer-major'
  | 'needs-newer-engine'
  | 'built-in'
  | 'not-in-registry'
  | 'unity-registry'
  | 'external'
  | 'registry'
  | 'no-compatible-version'
  | 'registry-unreachable';

const STATUS_TEXT: Record<PackageStatus, string> = {
  latest: 'latest',
  'newer-major': 'newest of its major',
  'needs-newer-engine': 'newest for this editor',
  'built-in': 'built-in',
  'not-in-registry': 'not in registry',
  'unity-registry': "Unity's registry",
  external: 'local or git reference',
  registry: 'registry',
  'no-compatible-version': 'no compatible version',
  'registry-unreachable': 'registry not reachable',
};

export function statusText(status: PackageStatus): string {
  return STATUS_TEXT[status];
}
