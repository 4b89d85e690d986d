/** Output of `add`, `uninstall`, `install` and `list` (text and --json). */
import type { ScopedRegistry } from '../engines/engine.js';
import type { AddPlan } from '../resolve/add-plan.js';
import type { UninstallPlan } from '../resolve/uninstall-plan.js';
import type { DependencyChanges } from '../resolve/diff.js';
import { dependencyJson, dependencyLines } from './dependency-report.js';
import { plural, SEPARATOR, statusText, type PackageStatus } from '../output/format.js';
import { heading, muted, success, type CommandResult, type TextLine } from '../output/reporter.js';
import { registriesLine } from './update-report.js';
import type { UnitySignature } from '@pkg/protocol';
import { advisoryText, type AdvisoryMark } from './advisory-marks.js';

export interface ProjectHeader {
  engine: string;
  engineLabel: string;
  project: string;
  registry: string;
  /** Every registry the run asked, when that is not just `registry`. */
  registries?: string[];
}

export function header(title: string, h: ProjectHeader): TextLine[] {
  return [
    heading(title),
    muted(SEPARATOR),
    `Engine: ${h.engineLabel}`,
    `Project: ${h.project}`,
    `Registry: ${h.registry}`,
    ...registriesLine(h.registry, h.registries),
  ];
}

export function headerJson(h: ProjectHeader) {
  return { engine: h.engine, project: h.project, registry: h.registry, ...(h.registries ? { registries: h.registries } : {}) };
}

function scopedRegistryLines(entries: readonly ScopedRegistry[]): string[] {
  if (entries.length === 0) return [];
  return [
    '',
    ...entries.map((entry) =>
      entry.scopes.length === 0
        ? `Scoped registry '${entry.name}' removed: no package needs it any more`
        : `Scoped registry '${entry.name}' (${entry.url}) scopes: ${entry.scopes.join(', ')}`,
    ),
  ];
}

/** `scoped_registry` (the first changed entry, as before several registries) and all of them. */
function scopedJson(entries: readonly ScopedRegistry[]) {
  return { scoped_registry: entries[0] ?? null, scoped_registries: entries };
}

export function addReport(
  h: ProjectHeader,
  plan: AddPlan,
  backupPath: string | null,
  dependencies?: DependencyChanges,
): CommandResult {
  const count = plan.added.length;
  const message =
    count === 0 ? 'Nothing added: every package is in the manifest at that version already' : `${plural(count, 'package')} added`;
  const text = header('Add Packages', h);
  const fresh = plan.added.filter((a) => a.previous === undefined);
  const changed = plan.added.filter((a) => a.previous !== undefined);
  if (fresh.length > 0) text.push('', 'Added:', ...fresh.map((a) => `  ${a.package}@${a.version}`));
  if (changed.length > 0) text.push('', 'Changed:', ...changed.map((a) => `  ${a.package}: ${a.previous} → ${a.version}`));
  if (plan.alreadyPresent.length > 0) {
    text.push('', 'Already Present:', ...plan.alreadyPresent.map((a) => `  ${a.package}@${a.version}`));
  }
  if (plan.raised.length > 0) {
    text.push(
      '',
      'Raised for Dependencies:',
      ...plan.raised.map((r) => `  ${r.package}: ${r.from} → ${r.to} (required by ${r.requiredBy})`),
    );
  }
  text.push(...dependencyLines(dependencies), ...scopedRegistryLines(plan.registryEntries), '');
  if (backupPath) text.push(`Backup: ${backupPath}`);
  text.push(success(message));
  return {
    json: {
      ...headerJson(h),
      added: plan.added.map((a) => ({
        package: a.package,
        version: a.version,
        ...(a.previous ? { previous_version: a.previous } : {}),
      })),
      already_present: plan.alreadyPresent.map((a) => ({ package: a.package, version: a.version })),
      raised: plan.raised.map((r) => ({ package: r.package, old_version: r.from, new_version: r.to, required_by: r.requiredBy })),
      ...dependencyJson(dependencies),
      ...scopedJson(plan.registryEntries),
      backup_path: backupPath,
      message,
    },
    text,
  };
}

export function uninstallReport(
  h: ProjectHeader,
  plan: UninstallPlan,
  backupPath: string | null,
  dependencies?: DependencyChanges,
): CommandResult {
  const count = plan.removed.length;
  const message = `${plural(count, 'package')} removed`;
  const text = header('Uninstall Packages', h);
  text.push('', 'Removed:', ...plan.removed.map((r) => `  ${r.package}@${r.version}`));
  text.push(...dependencyLines(dependencies), ...scopedRegistryLines(plan.registryEntries), '');
  if (backupPath) text.push(`Backup: ${backupPath}`);
  text.push(success(message));
  return {
    json: {
      ...headerJson(h),
      removed: plan.removed,
      ...dependencyJson(dependencies),
      ...scopedJson(plan.registryEntries),
      backup_path: backupPath,
      message,
    },
    text,
  };
}

export interface FetchedPackage {
  package: string;
  version: string;
  cached: boolean;
  /** The registry it came from. */
  registry: string;
}

export interface SkippedPackage {
  package: string;
  version: string;
  status: PackageStatus;
}

export function installReport(h: ProjectHeader, fetched: FetchedPackage[], skipped: SkippedPackage[]): CommandResult {
  const downloaded = fetched.filter((f) => !f.cached).length;
  const message = `${plural(fetched.length, 'package')} verified in the cache (${downloaded} downloaded, ${fetched.length - downloaded} already cached)`;
  const text = header('Install', h);
  if (fetched.length > 0) {
    text.push('', 'Fetched and Verified:', ...fetched.map((f) => `  ${f.package}@${f.version}${f.cached ? ' (cached)' : ''}`));
  }
  if (skipped.length > 0)
    text.push('', 'Not Fetched:', ...skipped.map((s) => `  ${s.package}: ${s.version} (${statusText(s.status)})`));
  text.push('', success(message));
  return { json: { ...headerJson(h), fetched, skipped, message }, text };
}

export interface ListedPackage {
  package: string;
  /** null for a package installed only because others need it (Godot, Unreal). */
  requested: string | null;
  resolved: string | null;
  latest_compatible: string | null;
  status: PackageStatus;
  outdated: boolean;
  /** The registry that serves it; null for built-ins and file or git references. */
  registry: string | null;
  /** `list --all`: the packages (`name@version`) that need it. */
  required_by?: string[];
  /** Unity projects: Unity's package signature of the installed version (null: unsigned). */
  unity_signature?: UnitySignature | null;
  /** The advisories that affect the installed version, most severe first; absent when none does. */
  advisories?: AdvisoryMark[];
}

export function listReport(h: ProjectHeader, packages: ListedPackage[], outdatedOnly: boolean): CommandResult {
  const shown = outdatedOnly ? packages.filter((p) => p.outdated) : packages;
  const all = packages.some((p) => p.required_by !== undefined);
  const signatures = shown.some((p) => p.unity_signature !== undefined);
  const rows = [
    [
      'Package',
      'Requested',
      'Resolved',
      'Latest compatible',
      ...(signatures ? ['Unity signature'] : []),
      ...(all ? ['Required by'] : []),
    ],
  ];
  for (const p of shown) {
    rows.push([
      p.package,
      p.requested ?? '(dependency)',
      p.resolved ?? '-',
      p.latest_compatible ?? `- (${statusText(p.status)})`,
      ...(signatures ? [signatureText(p.unity_signature)] : []),
      ...(all ? [p.required_by!.length > 0 ? p.required_by!.join(', ') : '-'] : []),
    ]);
  }
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  const text = header(outdatedOnly ? 'Outdated Packages' : 'Packages', h);
  text.push('');
  if (shown.length === 0) text.push(outdatedOnly ? 'Every package is up to date.' : 'No packages.');
  else
    rows.forEach((row, index) => {
      const line = row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  ');
      text.push(index === 0 ? heading(line) : line);
    });
  const affected = shown.filter((p) => p.advisories !== undefined);
  if (affected.length > 0) {
    text.push('', { text: 'Affected by Advisories:', style: 'error' });
    for (const p of affected) {
      text.push(`  ${p.package}@${p.resolved ?? p.requested}`);
      for (const a of p.advisories!) text.push(`    ${advisoryText(a)}`);
    }
    text.push('Run pkg audit for the versions that fix them.');
  }
  return { json: { ...headerJson(h), packages: shown }, text };
}

function signatureText(signature: UnitySignature | null | undefined): string {
  if (signature === undefined) return '-';
  if (signature === null) return 'unsigned';
  return signature.signer !== null ? `signed by ${signature.signer}` : 'signed';
}
