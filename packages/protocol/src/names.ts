/**
 * Reverse-DNS package names, as the Unity Package Manager requires them:
 * lowercase, at least two dot-separated segments of `[a-z0-9_-]` each starting with a letter
 * or digit, at most 214 characters, no npm `@scope/`.
 */
declare const packageNameBrand: unique symbol;
/** A string proven to be a valid reverse-DNS package name. */
export type PackageName = string & { readonly [packageNameBrand]: true };

export const MAX_PACKAGE_NAME_LENGTH = 214;

export type NameCheck = { ok: true; name: PackageName } | { ok: false; rule: string };

const SEGMENT = /^[a-z0-9][a-z0-9_-]*$/;

export function checkPackageName(input: unknown, minSegments = 2): NameCheck {
  if (typeof input !== 'string' || input.length === 0) {
    return { ok: false, rule: 'the package name must be a non-empty string' };
  }
  if (input.length > MAX_PACKAGE_NAME_LENGTH) {
    return { ok: false, rule: `the package name must be at most ${MAX_PACKAGE_NAME_LENGTH} characters` };
  }
  if (input.startsWith('@') || input.includes('/')) {
    return { ok: false, rule: 'scoped names are not supported: use reverse-DNS form, e.g. com.vendor.name' };
  }
  if (input !== input.toLowerCase()) {
    return { ok: false, rule: 'the package name must be lowercase' };
  }
  const segments = input.split('.');
  if (segments.length < minSegments) {
    return {
      ok: false,
      rule: `the package name must be reverse-DNS with at least ${minSegments} dot-separated segments, e.g. com.vendor.name`,
    };
  }
  for (const segment of segments) {
    if (!SEGMENT.test(segment)) {
      return {
        ok: false,
        rule: `each segment of the package name must match [a-z0-9][a-z0-9_-]* (bad segment: '${segment}')`,
      };
    }
  }
  return { ok: true, name: input as PackageName };
}

export function isPackageName(input: unknown): input is PackageName {
  return checkPackageName(input).ok;
}

/** The tarball file name of a version, as npm builds it: `<name>-<version>.tgz`. */
export function tarballFileName(name: string, version: string): string {
  return `${name}-${version}.tgz`;
}
