import semver from 'semver';
import { checkPackageName, MAX_PACKAGE_NAME_LENGTH } from './names.js';

/**
 * The rules for the dependency fields of a published version. What a client installs
 * (`dependencies`, `peerDependencies`, `optionalDependencies`, `bundleDependencies`) must name
 * packages a registry of ours can serve: reverse-DNS names. `devDependencies` are never
 * installed from a published version, and a package's own build tools (typescript, eslint)
 * come from npm's registry, so there a valid npm name (optionally `@scope/`) is enough. Every
 * version is a valid semver range: tags, URLs, `file:` and `npm:` aliases are refused, because
 * a registry can only vouch for what resolves inside a registry.
 */
export const INSTALLED_DEPENDENCY_FIELDS = ['dependencies', 'peerDependencies', 'optionalDependencies'] as const;
export const DEPENDENCY_FIELDS = [...INSTALLED_DEPENDENCY_FIELDS, 'devDependencies'] as const;
export type DependencyField = (typeof DEPENDENCY_FIELDS)[number];

/** npm's rule for a new package name: lowercase, URL-safe, optionally `@scope/`. */
const NPM_NAME = /^(?:@[a-z0-9-~][a-z0-9-._~]*\/)?[a-z0-9-~][a-z0-9-._~]*$/;
const MAX_RANGE_LENGTH = 256;

/** The first problem of the version's dependency fields, worded for `error`; undefined when they are well-formed. */
export function dependencyFieldsProblem(manifest: Record<string, unknown>): string | undefined {
  for (const field of DEPENDENCY_FIELDS) {
    const value = manifest[field];
    if (value === undefined) continue;
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      return `'${field}' must map package names to version ranges`;
    }
    for (const [name, range] of Object.entries(value as Record<string, unknown>)) {
      const nameProblem = dependencyNameProblem(name, field);
      if (nameProblem) return `${field}: ${nameProblem}`;
      if (typeof range !== 'string') return `${field}: the version of '${shown(name)}' must be a string`;
      if (!isSemverRange(range)) {
        return `${field}: '${shown(range)}' (for '${shown(name)}') is not a valid semver version or range`;
      }
    }
  }
  return bundleDependenciesProblem(manifest);
}

function bundleDependenciesProblem(manifest: Record<string, unknown>): string | undefined {
  // npm accepts both spellings, and `true` for "everything in dependencies".
  for (const field of ['bundleDependencies', 'bundledDependencies'] as const) {
    const value = manifest[field];
    if (value === undefined || typeof value === 'boolean') continue;
    if (!Array.isArray(value)) return `'${field}' must be a list of package names or a boolean`;
    for (const name of value) {
      if (typeof name !== 'string') return `'${field}' must list package names as strings`;
      const problem = dependencyNameProblem(name, 'dependencies');
      if (problem) return `${field}: ${problem}`;
    }
  }
  return undefined;
}

function dependencyNameProblem(name: string, field: DependencyField): string | undefined {
  if (field === 'devDependencies') {
    if (name.length > 0 && name.length <= MAX_PACKAGE_NAME_LENGTH && NPM_NAME.test(name)) return undefined;
    return `'${shown(name)}' is not a valid package name (reverse-DNS, or an npm name for a devDependency)`;
  }
  const check = checkPackageName(name);
  return check.ok ? undefined : `'${shown(name)}' is not a valid package name: ${check.rule}`;
}

/** A version or range semver understands (`1.2.3`, `^1.2`, `>=1 <2 || 3.x`, `*`, ``), nothing else. */
export function isSemverRange(range: string): boolean {
  return range.length <= MAX_RANGE_LENGTH && semver.validRange(range) !== null;
}

function shown(value: string): string {
  const printable = JSON.stringify(value).slice(1, -1);
  return printable.length > 80 ? `${printable.slice(0, 80)}…` : printable;
}
