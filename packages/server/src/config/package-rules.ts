/**
 * Package rules as the uplinks, scoped tokens and teams write them: an exact package name, or a
 * namespace `<prefix>.*` that holds every name below the prefix (`com.studio.*` holds
 * `com.studio.tool` and `com.studio.tool.extra`, not `com.studio`). One reading of the form for
 * all three, so that a namespace means the same thing wherever it is written.
 */

/** A reverse-DNS name or its start, the way package names are written (protocol/names.ts). */
const PREFIX = /^[a-z0-9][a-z0-9_-]*(\.[a-z0-9][a-z0-9_-]*)*$/;
const MAX_PREFIX = 214;

/** A rule read: `prefix` is the name itself, or the namespace's prefix without `.*`. */
export interface PackageRule {
  kind: 'name' | 'namespace';
  prefix: string;
}

/** The rule a text writes, or undefined when it is neither a package name nor a `<prefix>.*` namespace. */
export function parsePackageRule(rule: unknown): PackageRule | undefined {
  if (typeof rule !== 'string') return undefined;
  const namespace = rule.endsWith('.*');
  const prefix = namespace ? rule.slice(0, -2) : rule;
  if (!PREFIX.test(prefix) || prefix.length > MAX_PREFIX) return undefined;
  return { kind: namespace ? 'namespace' : 'name', prefix };
}

/** Whether `name` falls under the rule (the exact name, or a name below the namespace's prefix). */
export function ruleCovers(rule: string, name: string): boolean {
  return rule.endsWith('.*') ? name.startsWith(rule.slice(0, -1)) : name === rule;
}

/**
 * The namespace prefixes that hold `name`, longest first (`a.b.c` → `a.b`, `a`): the longest
 * namespace that holds a name is the one that decides about it.
 */
export function* enclosingPrefixes(name: string): Generator<string> {
  for (let end = name.lastIndexOf('.'); end > 0; end = name.lastIndexOf('.', end - 1)) yield name.slice(0, end);
}

/** Whether two namespace prefixes share a name: one of them is the other or holds it. */
export function prefixesOverlap(a: string, b: string): boolean {
  return a === b || a.startsWith(`${b}.`) || b.startsWith(`${a}.`);
}
