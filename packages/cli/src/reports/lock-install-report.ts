/** `pkg install` on a Godot or Unreal project: what was installed from `pkg-lock.json` and what was in place. */
import type { RestoredPackage } from '../install/lock-file.js';
import { SEPARATOR } from '../output/format.js';
import type { ProjectHeader } from './project-reports.js';
import type { CommandResult } from '../output/reporter.js';

export function lockInstallReport(h: ProjectHeader, packages: RestoredPackage[], backupPath: string | null): CommandResult {
  const installed = packages.filter((p) => p.status === 'installed');
  const inPlace = packages.filter((p) => p.status === 'in-place');
  const message = `${installed.length} package${installed.length === 1 ? '' : 's'} installed and verified (${inPlace.length} already in place)`;
  const text = ['Install', SEPARATOR, `Engine: ${h.engineLabel}`, `Project: ${h.project}`, `Registry: ${h.registry}`];
  if (installed.length > 0) {
    text.push(
      '',
      'Installed and Verified:',
      ...installed.map((p) => `  ${p.package}@${p.version}${p.cached ? ' (cached)' : ''}`),
    );
  }
  if (inPlace.length > 0) text.push('', 'Already in Place:', ...inPlace.map((p) => `  ${p.package}@${p.version}`));
  text.push('');
  if (backupPath) text.push(`Backup: ${backupPath}`);
  text.push(message);
  return {
    json: {
      engine: h.engine,
      project: h.project,
      registry: h.registry,
      installed: installed.map((p) => ({ package: p.package, version: p.version, cached: p.cached })),
      in_place: inPlace.map((p) => ({ package: p.package, version: p.version })),
      backup_path: backupPath,
      message,
    },
    text,
  };
}
