/** Output of `add`, `uninstall`, `install` and `list` (text and --json). */
import type { ScopedRegistry } from '../engines/engine.js';
import type { AddPlan } from '../updates/add-plan.js';
import type { UninstallPlan } from '../updates/uninstall-plan.js';
import { SEPARATOR } from './format.js';
import type { CommandResult } from './reporter.js';

export interface ProjectHeader {
  engine: string;
  engineLabel: string;
  project: string;
  registry: string;
}

function header(title: string, h: ProjectHeader): string[] {
  return [title, SEPARATOR, `Engine: ${h.engineLabel}`, `Project: ${h.project}`, `Registry: ${h.registry}`];
}

function headerJson(h: ProjectHeader) {
  return { engine: h.engine, project: h.project, registry: h.registry };
}

function scopedRegistryLines(entry: ScopedRegistry | undefined): string[] {
  if (!entry) return [];
  if (entry.scopes.length === 0) return ['', `Scoped registry '${entry.name}' removed: no package needs it any more`];
  return ['', `Scoped registry '${entry.name}' (${entry.url}) scopes: ${entry.scopes.join(', ')}`];
}

export function addReport(h: ProjectHeader, plan: AddPlan, backupPath: string | null): CommandResult {
  const count = plan.added.length;
  const message = `${count} package${count === 1 ? '' : 's'} added`;
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
  text.push(...scopedRegistryLines(plan.registryEntry), '');
  if (backupPath) text.push(`Backup: ${backupPath}`);
  text.push(message);
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
      scoped_registry: plan.registryEntry ?? null,
      backup_path: backupPath,
      message,
    },
    text,
  };
}

export function uninstallReport(h: ProjectHeader, plan: UninstallPlan, backupPath: string | null): CommandResult {
  const count = plan.removed.length;
  const message = `${count} package${count === 1 ? '' : 's'} removed`;
  const text = header('Uninstall Packages', h);
  text.push('', 'Removed:', ...plan.removed.map((r) => `  ${r.package}@${r.version}`));
  text.push(...scopedRegistryLines(plan.registryEntry), '');
  if (backupPath) text.push(`Backup: ${backupPath}`);
  text.push(message);
  return {
    json: {
      ...headerJson(h),
      removed: plan.removed,
      scoped_registry: plan.registryEntry ?? null,
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
}

export interface SkippedPackage {
  package: string;
  version: string;
  status: string;
}

export function installReport(h: ProjectHeader, fetched: FetchedPackage[], skipped: SkippedPackage[]): CommandResult {
  const downloaded = fetched.filter((f) => !f.cached).length;
  const message = `${fetched.length} packages verified in the cache (${downloaded} downloaded, ${fetched.length - downloaded} already cached)`;
  const text = header('Install', h);
  if (fetched.length > 0) {
    text.push('', 'Fetched and Verified:', ...fetched.map((f) => `  ${f.package}@${f.version}${f.cached ? ' (cached)' : ''}`));
  }
  if (skipped.length > 0)
    text.push('', 'Not From This Registry:', ...skipped.map((s) => `  ${s.package}: ${s.version} (${s.status})`));
  text.push('', message);
  return { json: { ...headerJson(h), fetched, skipped, message }, text };
}

export interface ListedPackage {
  package: string;
  requested: string;
  resolved: string | null;
  latest_compatible: string | null;
  status: string;
  outdated: boolean;
}

export function listReport(h: ProjectHeader, packages: ListedPackage[], outdatedOnly: boolean): CommandResult {
  const shown = outdatedOnly ? packages.filter((p) => p.outdated) : packages;
  const rows = [['Package', 'Requested', 'Resolved', 'Latest compatible']];
  for (const p of shown) {
    rows.push([p.package, p.requested, p.resolved ?? '-', p.latest_compatible ?? `- (${p.status})`]);
  }
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  const text = header(outdatedOnly ? 'Outdated Packages' : 'Packages', h);
  text.push('');
  if (shown.length === 0) text.push(outdatedOnly ? 'Every package is up to date.' : 'No packages.');
  else
    for (const row of rows) text.push(row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  '));
  return { json: { ...headerJson(h), packages: shown }, text };
}
