/** Output of `pkg audit` (text and --json). */
import type { BulkAdvisory } from '../http/registry-client.js';
import { header, headerJson, type ProjectHeader } from './project-reports.js';
import { success, type CommandResult, type TextLine } from '../output/reporter.js';

export interface AuditFinding {
  package: string;
  version: string;
  registry: string;
  advisories: BulkAdvisory[];
  /** The version to move to, or null when no published version is free of these advisories. */
  fix: string | null;
}

export function auditReport(h: ProjectHeader, findings: AuditFinding[], audited: number): CommandResult {
  const text: TextLine[] = header('Security Audit', h);
  text.push('');
  if (findings.length === 0) {
    text.push(success(`No known vulnerabilities in ${audited} packages.`));
  } else {
    for (const f of findings) {
      text.push({ text: `${f.package}@${f.version}`, style: 'error' });
      for (const a of f.advisories)
        text.push(`  ${a.severity.toUpperCase()}  ${a.title} (${a.id}, affects ${a.vulnerable_versions})  ${a.url}`);
      text.push(
        f.fix ? `  Fix: pkg add ${f.package}@${f.fix}` : { text: '  No fixed version has been published yet.', style: 'warning' },
      );
    }
    text.push('');
    text.push({ text: `${findings.length} of ${audited} packages affected by known vulnerabilities.`, style: 'error' });
  }
  return {
    json: { ...headerJson(h), audited, vulnerabilities: findings },
    text,
    exitCode: findings.length > 0 ? 1 : 0,
  };
}
