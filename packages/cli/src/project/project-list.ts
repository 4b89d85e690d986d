/** `pkg list`, `pkg outdated` and `pkg why` on a project. */
import semver from 'semver';
import type { CommandContext } from '../context.js';
import { ClientError, EXIT } from '../errors/client-errors.js';
import type { CommandResult } from '../output/reporter.js';
import { pickNewest, pickUpdate } from '../resolve/pick-version.js';
import { listReport, type ListedPackage } from '../reports/project-reports.js';
import { outdatedReport, whyReport, type OutdatedPackage, type WhyChain } from '../reports/studio-reports.js';
import type { ProjectOptions } from './project-actions.js';
import { currentVersion, projectView } from './project-packages.js';
import { askAdvisories } from './installed-advisories.js';
import { recordOf } from '../resolve/plan-context.js';
import { unitySignatureOf } from '@pkg/protocol';

export async function projectList(
  ctx: CommandContext,
  outdated: boolean,
  options: ProjectOptions & { all?: boolean },
): Promise<CommandResult> {
  const view = await projectView(ctx, options, options.all ?? false, true);
  const { registries } = view;
  const installed = new Map<string, string[]>();
  for (const p of view.packages) {
    const current = currentVersion(p);
    if (!p.status && current !== null) installed.set(p.name, [current]);
  }
  // A registry that cannot say which advisories apply costs only the marks of its packages.
  const advisories = await askAdvisories(registries, installed, true);
  const unity = view.open.engine.id === 'unity';
  const packages: ListedPackage[] = view.packages.map((p) => {
    const latest = p.status ? null : pickNewest(view.context, p.name);
    const current = currentVersion(p);
    const registry = p.status === 'built-in' || p.status === 'external' ? null : view.registries.set.registryOf(p.name);
    const affecting = current !== null && !p.status ? advisories.affecting(p.name, current) : [];
    const record = current !== null && !p.status ? recordOf(view.context, p.name, current) : undefined;
    const signature = unity && record ? unitySignatureOf(record) : undefined;
    return {
      package: p.name,
      requested: p.requested,
      resolved: p.resolved,
      latest_compatible: latest,
      status: p.status ?? (latest === null ? 'no-compatible-version' : 'registry'),
      // A dependency's version follows what its dependents ask for: `pkg update` cannot take it on its own.
      outdated: p.requested !== null && latest !== null && current !== null && semver.gt(latest, current),
      registry,
      ...(options.all ? { required_by: p.requiredBy } : {}),
      ...(signature !== undefined ? { unity_signature: signature } : {}),
      ...(affecting.length > 0 ? { advisories: affecting } : {}),
    };
  });
  for (const [url, err] of advisories.failed) {
    ctx.reporter.warn(`${url} could not say which advisories apply, its packages are shown without them: ${err.message}`);
  }
  for (const notice of advisories.notices) ctx.reporter.warn(notice);
  // One registry down, or refused, costs only its own packages: they are listed as such, and said.
  for (const [url, err] of registries.set.unreachable) {
    ctx.reporter.warn(
      `${url} could not be asked, its packages are shown without their latest version: ${err.message}${err.hint ? ` (${err.hint})` : ''}`,
    );
  }
  const report = listReport(view.header, packages, outdated);
  if (registries.set.unreachable.size === 0) return report;
  return {
    json: {
      success: false,
      partial: true,
      ...report.json,
      unreachable: [...registries.set.unreachable].map(([registry, err]) => ({ registry, code: err.code, error: err.message })),
    },
    text: report.text,
    exitCode: EXIT.FAILED,
  };
}

/** `pkg outdated`: the manifest's packages a newer compatible version exists of; exit 1 when any. */
export async function projectOutdated(ctx: CommandContext, options: ProjectOptions): Promise<CommandResult> {
  const view = await projectView(ctx, options, false);
  const outdated: OutdatedPackage[] = [];
  for (const p of view.packages) {
    const current = currentVersion(p);
    if (p.status || current === null) continue;
    const latest = pickNewest(view.context, p.name);
    if (latest === null || !semver.gt(latest, current)) continue;
    outdated.push({
      package: p.name,
      current,
      wanted: pickUpdate(view.context, p.name, current, false) ?? current,
      latest,
      registry: view.registries.set.registryOf(p.name),
    });
  }
  return outdatedReport(view.header, outdated);
}

/** `pkg why <name>`: every chain of dependencies from the manifest down to `name`. */
export async function projectWhy(ctx: CommandContext, name: string, options: ProjectOptions): Promise<CommandResult> {
  const view = await projectView(ctx, options, true);
  const byName = new Map(view.packages.map((p) => [p.name, p]));
  const target = byName.get(name);
  if (!target) throw new ClientError('WHY_NOT_IN_PROJECT', { name, manifest: view.open.engine.manifestRelativePath });
  const versionOf = (p: { resolved: string | null; requested: string | null }) => p.resolved ?? p.requested ?? '?';
  const chains: WhyChain[] = [];
  // Walks up from `name` through who needs it, to the manifest; a package met twice on one path ends it.
  const walk = (current: string, path: string[]): void => {
    const p = byName.get(current);
    if (!p) return;
    const here = [`${current}@${versionOf(p)}`, ...path];
    if (p.requested !== null) chains.push(here);
    for (const by of p.requiredBy) {
      const parent = by.slice(0, by.lastIndexOf('@'));
      if (!path.some((step) => step.startsWith(`${parent}@`)) && parent !== current) walk(parent, here);
    }
  };
  walk(name, []);
  chains.sort((a, b) => a.length - b.length || a.join().localeCompare(b.join()));
  return whyReport(view.header, `${name}@${versionOf(target)}`, target.requested !== null, chains);
}
