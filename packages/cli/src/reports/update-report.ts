/**
 * `pkg update` output: the text of shared/SPEC.md rules 5 and 6 and the update report of its
 * "Client update report" table (snake_case, as the spec writes it).
 */
import { EXIT } from '../errors/client-errors.js';
import { orNewer } from '../resolve/requirement-text.js';
import type { ScopedRegistry } from '../engines/engine.js';
import { sameRegistryUrl } from '../engines/registry-url.js';
import type { UnchangedPackage, UpdatePlan } from '../resolve/update-plan.js';
import type { DependencyChanges } from '../resolve/diff.js';
import { dependencyJson, dependencyLines } from './dependency-report.js';
import { plural, SEPARATOR, statusText } from '../output/format.js';
import { heading, muted, success, type CommandResult, type TextLine } from '../output/reporter.js';
import { advisoryText, type AdvisoryMark } from './advisory-marks.js';

export interface UpdateReportInput {
  plan: UpdatePlan;
  /** Engine identifier (`unity`), or `global` for global packages. */
  engine: string;
  engineLabel: string;
  engineVersion: string | null;
  project: string;
  registry: string;
  /** Every registry the run asked, when that is not just `registry`. */
  registries?: string[];
  mode: 'dry-run' | 'saved' | 'fetched';
  backupPath: string | null;
  /** The manifest's name for messages (`Packages/manifest.json`). */
  manifestName: string;
  /** Godot, Unreal: the dependencies the update installed and removed. */
  dependencies?: DependencyChanges;
  /** A dry run: each of the plan's conflicts with what to do about it. */
  conflictLines?: string[];
  /** The known advisories that affect a version (none known: absent). */
  advisories?: (name: string, version: string) => AdvisoryMark[];
}

/** `Registries: …` when the run asked others than the registry in effect. */
export function registriesLine(inEffect: string, asked: readonly string[] | undefined): string[] {
  if (!asked || asked.length === 0 || (asked.length === 1 && sameRegistryUrl(asked[0]!, inEffect))) return [];
  return [`Registries: ${asked.join(', ')}`];
}

export function updateMessage(count: number, mode: UpdateReportInput['mode'], manifestName: string): string {
  if (count === 0) {
    if (mode === 'dry-run') return 'Nothing would be updated';
    if (mode === 'fetched') return `Nothing to fetch; ${manifestName} not changed (--save=false)`;
    return 'Nothing to update: no package has a newer version it can take';
  }
  if (mode === 'dry-run') return `${plural(count, 'package')} would be updated`;
  if (mode === 'fetched') return `${plural(count, 'package')} fetched into the cache; ${manifestName} not changed (--save=false)`;
  return `${plural(count, 'package')} updated successfully`;
}

/** Why an unchanged package stays, in one line: `latest` only when nothing newer exists. */
function unchangedText(u: UnchangedPackage): string {
  const reasons = [
    ...(u.newerMajor ? [`${u.newerMajor} is a new major version: pkg update ${u.package} --latest`] : []),
    ...(u.needsNewerEngine ? [`${u.needsNewerEngine.version} needs ${orNewer(u.needsNewerEngine.requires)}`] : []),
  ];
  return reasons.length > 0 ? reasons.join('; ') : statusText(u.status);
}

function unchangedJson(u: UnchangedPackage, marks: (name: string, version: string) => AdvisoryMark[]) {
  const advisories = marks(u.package, u.version);
  return {
    package: u.package,
    version: u.version,
    status: u.status,
    ...(advisories.length > 0 ? { advisories } : {}),
    ...(u.newerMajor ? { newer_major: u.newerMajor } : {}),
    ...(u.needsNewerEngine
      ? { needs_newer_engine: { version: u.needsNewerEngine.version, requires: u.needsNewerEngine.requires } }
      : {}),
  };
}

/** Each package whose version a known advisory affects, its advisories, and what the update does about them. */
function advisoryLines(plan: UpdatePlan, marks: (name: string, version: string) => AdvisoryMark[]): TextLine[] {
  const lines: TextLine[] = [];
  for (const u of plan.updated) {
    const before = marks(u.package, u.from);
    const after = marks(u.package, u.to);
    if (before.length === 0 && after.length === 0) continue;
    const outcome = after.length === 0 ? `${u.to} is not affected` : `${u.to} is affected too`;
    lines.push(`  ${u.package}@${u.from} → ${u.to}: ${outcome}`);
    for (const a of after.length > 0 ? after : before) lines.push(`    ${advisoryText(a)}`);
  }
  for (const u of plan.unchanged) {
    const affecting = marks(u.package, u.version);
    if (affecting.length === 0) continue;
    lines.push(`  ${u.package}@${u.version}: not updated`);
    for (const a of affecting) lines.push(`    ${advisoryText(a)}`);
  }
  return lines.length > 0 ? ['', { text: 'Advisories:', style: 'warning' }, ...lines] : [];
}

function scopesAdded(entry: ScopedRegistry, before: readonly ScopedRegistry[]): string[] {
  const old = before.find((e) => sameRegistryUrl(e.url, entry.url))?.scopes ?? [];
  return entry.scopes.filter((s) => !old.includes(s));
}

export function updateReport(input: UpdateReportInput, scopedBefore: readonly ScopedRegistry[] = []): CommandResult {
  const { plan, mode } = input;
  const perEntry = plan.registryEntries.map((entry) => ({ entry, added: scopesAdded(entry, scopedBefore) }));
  const added = perEntry.flatMap((e) => e.added);
  const message = updateMessage(plan.updated.length, mode, input.manifestName);
  const marks = input.advisories ?? (() => []);
  const json = {
    engine: input.engine,
    engine_version: input.engineVersion,
    project: input.project,
    registry: input.registry,
    ...(input.registries ? { registries: input.registries } : {}),
    updated: plan.updated.map((u) => {
      const before = marks(u.package, u.from);
      const after = marks(u.package, u.to);
      return {
        package: u.package,
        old_version: u.from,
        new_version: u.to,
        ...(u.requiredBy ? { required_by: u.requiredBy } : {}),
        ...(before.length > 0 ? { advisories: before } : {}),
        ...(after.length > 0 ? { new_version_advisories: after } : {}),
        ...(u.needsNewerEngine
          ? { needs_newer_engine: { version: u.needsNewerEngine.version, requires: u.needsNewerEngine.requires } }
          : {}),
      };
    }),
    unchanged: plan.unchanged.map((u) => unchangedJson(u, marks)),
    scopes_added: added,
    ...dependencyJson(input.dependencies),
    backup_path: input.backupPath,
    message,
    ...(mode === 'dry-run' ? { dry_run: true } : {}),
    ...(plan.conflicts.length > 0
      ? {
          success: false,
          conflicts: plan.conflicts.map((c, i) => ({
            package: c.package,
            requires: `${c.requires.name}@${c.requires.version}`,
            reason: c.reason,
            message: c.message,
            ...(input.conflictLines?.[i] ? { advice: input.conflictLines[i] } : {}),
          })),
        }
      : {}),
    ...(mode === 'fetched' ? { saved: false } : {}),
  };

  const preview = mode === 'dry-run';
  const text: TextLine[] = [
    heading(preview ? 'Update Preview' : 'Package Updates'),
    muted(SEPARATOR),
    `Engine: ${input.engineLabel}`,
    `Project: ${input.project}`,
    `Registry: ${input.registry}`,
    ...registriesLine(input.registry, input.registries),
  ];
  const updatedTitle = preview ? 'Would Update:' : mode === 'fetched' ? 'Fetched (not saved):' : 'Updated Packages:';
  if (plan.updated.length > 0) {
    text.push('', updatedTitle);
    for (const u of plan.updated)
      text.push(`  ${u.package}: ${u.from} → ${u.to}${u.requiredBy ? ` (required by ${u.requiredBy})` : ''}`);
  }
  if (plan.unchanged.length > 0) {
    text.push('', preview ? 'Would Not Update:' : 'No Updates Available:');
    for (const u of plan.unchanged) text.push(`  ${u.package}: ${u.version} (${unchangedText(u)})`);
  }
  text.push(...advisoryLines(plan, marks));
  text.push(...dependencyLines(input.dependencies));
  for (const { entry, added: names } of perEntry) {
    if (names.length === 0) continue;
    text.push('', `${preview ? 'Would add to' : 'Added to'} scoped registry '${entry.name}': ${names.join(', ')}`);
  }
  // What keeps an unchanged package where it is is said on its own line; notes are for updates.
  const notes = plan.updated.flatMap((u) =>
    u.needsNewerEngine ? [`${u.package} ${u.needsNewerEngine.version} needs ${orNewer(u.needsNewerEngine.requires)}`] : [],
  );
  if (notes.length > 0) text.push('', 'Notes:', ...notes.map((n) => `  ${n}`));
  text.push('');
  if (input.backupPath) text.push(`Backup: ${input.backupPath}`);
  if (preview && plan.conflicts.length > 0) {
    text.push(
      `Conflicts (${plan.conflicts.length}): the update cannot be applied as it is`,
      ...(input.conflictLines ?? plan.conflicts.map((c) => c.message)).map((line) => `  ${line}`),
    );
    return { json, text, exitCode: EXIT.FAILED };
  }
  if (preview) text.push(message, 'Run without --dry-run to apply these updates.');
  else text.push(success(message));
  return { json, text };
}
