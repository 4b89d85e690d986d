/**
 * `pkg add <name>[@version|@tag|@range]`: which version each package gets and which manifest
 * entries must rise with it, the first step of the resolver (`resolver.ts`), which then resolves
 * the closure and the scoped-registry entries once for every command. Pure, like the update
 * plan; a request that cannot be met throws a `ClientError` saying why and what would work.
 */
import { orNewer } from './requirement-text.js';
import semver from 'semver';
import { checkPackageName } from '@pkg/protocol';
import type { ScopedRegistry } from '../engines/engine.js';
import { ClientError } from '../errors/client-errors.js';
import { recordOf, type NeedsDocuments, type PlanContext } from './plan-context.js';
import { isUsable, pickNewest, usableVersions, versionRequirements } from './pick-version.js';
import { raiseDependencies, type Conflict } from './raise-dependencies.js';
import type { PlannedUpdate } from './update-plan.js';

export interface PackageRequest {
  name: string;
  /** A version, a dist-tag or a semver range; absent for "the newest that works". */
  spec?: string;
}

export interface AddedPackage {
  package: string;
  version: string;
  /** The version the manifest had before, when the package was there already. */
  previous?: string;
}

export interface AddPlan {
  kind: 'plan';
  /** Packages written with a new version, in request order. */
  added: AddedPackage[];
  /** Requested packages already at the chosen version. */
  alreadyPresent: AddedPackage[];
  /** Other manifest entries raised because an added version needs them. */
  raised: PlannedUpdate[];
  /** Raises that are not allowed; the resolver adds the closure's own. */
  conflicts: Conflict[];
  dependencies: Record<string, string>;
  /**
   * Scoped-registry entries created or completed for the added packages and what they bring;
   * empty when none changes. Set by the resolver, from the closure (empty from `planAdd`).
   */
  registryEntries: ScopedRegistry[];
}

export interface AddOptions {
  /** How the engine and its version read in messages, e.g. `Unity 2022.3.10f1`. */
  engineLabel: string;
  latest?: boolean;
}

/** Splits `com.vendor.name@1.2.0` (names cannot contain `@`, so the first one separates). */
export function parsePackageRequest(input: string): PackageRequest {
  const at = input.indexOf('@');
  const name = at === -1 ? input : input.slice(0, at);
  const spec = at === -1 ? undefined : input.slice(at + 1);
  const check = checkPackageName(name);
  if (!check.ok) {
    throw new ClientError('INVALID_PACKAGE_NAME', { name, rule: check.rule });
  }
  if (spec !== undefined && spec.trim() === '') {
    throw new ClientError('MISSING_VERSION', { spec: input });
  }
  return spec === undefined ? { name } : { name, spec };
}

export function planAdd(
  dependencies: Readonly<Record<string, string>>,
  requests: readonly PackageRequest[],
  context: PlanContext,
  options: AddOptions,
): AddPlan | NeedsDocuments {
  const wanted = [
    ...requests.map((r) => r.name),
    ...Object.entries(dependencies)
      .filter(([name, version]) => !context.isBuiltIn(name) && semver.valid(version))
      .map(([name]) => name),
  ];
  const missing = [...new Set(wanted)].filter((name) => !context.documents.has(name));
  if (missing.length > 0) return { kind: 'needs-documents', names: missing };

  const final: Record<string, string> = { ...dependencies };
  const added: AddedPackage[] = [];
  const alreadyPresent: AddedPackage[] = [];
  for (const request of requests) {
    const previous = dependencies[request.name];
    let version = chooseVersion(context, request, options.engineLabel);
    // `add` without a version never moves a package down (from a prerelease, say): that takes asking.
    if (request.spec === undefined && previous !== undefined && semver.valid(previous) && semver.gt(previous, version)) {
      version = previous;
    }
    const entry: AddedPackage = { package: request.name, version, ...(previous !== undefined ? { previous } : {}) };
    if (previous === version) alreadyPresent.push(entry);
    else added.push(entry);
    final[request.name] = version;
  }

  const raised = raiseDependencies(
    context,
    { ...dependencies, ...Object.fromEntries(added.map((a) => [a.package, a.version])) },
    final,
    added.map((a) => a.package),
    options.latest ?? false,
  );
  if (raised.missing.size > 0) return { kind: 'needs-documents', names: [...raised.missing] };
  return {
    kind: 'plan',
    added,
    alreadyPresent,
    raised: raised.raises.map((r) => ({ package: r.name, from: r.from, to: r.to, requiredBy: r.requiredBy })),
    conflicts: raised.conflicts,
    dependencies: final,
    registryEntries: [],
  };
}

function chooseVersion(context: PlanContext, request: PackageRequest, engineLabel: string): string {
  const { name, spec } = request;
  const document = context.documents.get(name);
  if (!document) {
    throw new ClientError('PACKAGE_NOT_IN_REGISTRY', { name });
  }
  if (spec === undefined) {
    const newest = pickNewest(context, name);
    if (newest === null) throw noCompatibleVersion(context, name, engineLabel);
    return newest;
  }
  const tagged = document['dist-tags']?.[spec];
  const exact = semver.valid(spec) === spec ? spec : typeof tagged === 'string' ? tagged : undefined;
  if (exact !== undefined) {
    if (!recordOf(context, name, exact)) {
      throw new ClientError('VERSION_NOT_PUBLISHED', { version: exact, name, available: availableHint(context, name) });
    }
    const record = recordOf(context, name, exact)!;
    if (!context.isCompatible(record)) {
      const compatible = usableVersions(context, name);
      throw new ClientError('VERSION_NEEDS_NEWER_ENGINE', {
        name,
        version: exact,
        requires: orNewer(String(context.requirementOf(record))),
        engine: engineLabel,
        versions:
          compatible.length > 0
            ? `Versions that work with ${engineLabel}: ${compatible.slice(0, 10).join(', ')}`
            : `No version of ${name} works with ${engineLabel}.`,
      });
    }
    return exact;
  }
  if (semver.validRange(spec) === null) {
    throw new ClientError('VERSION_OR_TAG_NOT_FOUND', { spec, name, available: availableHint(context, name) });
  }
  const inRange = pickNewest(context, name, spec);
  if (inRange === null) {
    throw new ClientError('NO_MATCHING_COMPATIBLE_VERSION', {
      name,
      spec,
      engine: engineLabel,
      available: availableHint(context, name),
    });
  }
  return inRange;
}

function availableHint(context: PlanContext, name: string): string {
  const tags = Object.entries(context.documents.get(name)?.['dist-tags'] ?? {}).map(([t, v]) => `${t} → ${v}`);
  const compatible = usableVersions(context, name);
  const parts = [
    compatible.length > 0 ? `Compatible versions: ${compatible.slice(0, 10).join(', ')}` : 'No version is compatible.',
  ];
  if (tags.length > 0) parts.push(`Tags: ${tags.join(', ')}`);
  return parts.join('. ');
}

function noCompatibleVersion(context: PlanContext, name: string, engineLabel: string): ClientError {
  const versions = versionRequirements(context, name).filter((v) => !isUsable(context, name, v.version));
  const requirements = new Set(versions.map((v) => v.requires));
  const only = requirements.size === 1 ? [...requirements][0] : undefined;
  if (versions.length > 1 && typeof only === 'string') {
    // One reason for all (a package for another engine): said once.
    return new ClientError('NO_COMPATIBLE_VERSION', {
      name,
      engine: engineLabel,
      versions: `Every published version (${versions.length}) needs ${only}.`,
    });
  }
  const described = versions
    .slice(0, 5)
    .map((v) => `${v.version} (${v.requires === null ? 'deprecated' : `needs ${v.requires}`})`);
  return new ClientError('NO_COMPATIBLE_VERSION', {
    name,
    engine: engineLabel,
    versions: described.length > 0 ? `Published versions: ${described.join(', ')}` : `${name} has no published versions.`,
  });
}
