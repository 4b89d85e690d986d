/** Output of `pkg outdated` and `pkg why` (text and --json). */
import { EXIT } from '../errors/client-errors.js';
import { plural, SEPARATOR } from '../output/format.js';
import { heading, muted, success, type CommandResult, type TextLine } from '../output/reporter.js';
import type { ProjectHeader } from './project-reports.js';
import { registriesLine } from './update-report.js';

export interface OutdatedPackage {
  package: string;
  current: string;
  /** The newest compatible version within the current major (what `pkg update` takes). */
  wanted: string;
  /** The newest compatible version in any major (what `pkg update --latest` takes). */
  latest: string;
  registry: string;
}

/** A chain from a manifest entry (first) down to the package asked about (last), as `name@version`. */
export type WhyChain = string[];

function header(title: string, h: ProjectHeader): TextLine[] {
  return [
    heading(title),
    muted(SEPARATOR),
    `Engine: ${h.engineLabel}`,
    `Project: ${h.project}`,
    `Registry: ${h.registry}`,
    ...registriesLine(h.registry, h.registries),
    '',
  ];
}

const headerJson = (h: ProjectHeader) => ({
  engine: h.engine,
  project: h.project,
  registry: h.registry,
  ...(h.registries ? { registries: h.registries } : {}),
});

function table(rows: string[][]): TextLine[] {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((row, index) => {
    const line = row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  ');
    return index === 0 ? heading(line) : line;
  });
}

export function outdatedReport(h: ProjectHeader, packages: OutdatedPackage[]): CommandResult {
  const message = packages.length === 0 ? 'Every package is up to date' : `${plural(packages.length, 'package')} can be updated`;
  const text = header('Outdated Packages', h);
  if (packages.length === 0) text.push(success(message));
  else {
    text.push(
      ...table([['Package', 'Current', 'Wanted', 'Latest'], ...packages.map((p) => [p.package, p.current, p.wanted, p.latest])]),
      '',
      message,
      'Wanted: the newest within the major (pkg update); Latest: the newest compatible (pkg update --latest).',
    );
  }
  return {
    json: { ...headerJson(h), outdated: packages, message },
    text,
    // As `npm outdated` does, so a CI step fails while anything is behind.
    ...(packages.length > 0 ? { exitCode: EXIT.FAILED } : {}),
  };
}

export function whyReport(h: ProjectHeader, label: string, direct: boolean, chains: WhyChain[]): CommandResult {
  const text = header(`Why ${label}`, h);
  if (direct) text.push(`${label} is listed in the manifest.`);
  const through = chains.filter((c) => c.length > 1);
  if (through.length > 0) {
    text.push(
      `${direct ? 'It is also needed' : `${label} is needed`} through ${plural(through.length, 'chain')} of dependencies:`,
      ...through.map((c) => `  ${c.join(' → ')}`),
    );
  }
  return { json: { ...headerJson(h), package: label, direct, chains: through }, text };
}
