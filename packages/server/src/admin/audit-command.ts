import { parseArgs } from 'node:util';
import { AuditTrail } from '../services/audit-trail.js';
import { parseAuditQuery } from '../services/audit-query.js';
import { AdminUsageError, TenantAdmin } from '../services/tenant-admin.js';
import { GLOBAL_TENANT, type AuditEntry } from '../storage/ports.js';
import { STORAGE_OPTIONS, formatTable, openStorage, runAdmin, type AdminIo } from './admin-io.js';

export const AUDIT_USAGE = `Usage: pkg-registry audit [options]

The registry's audit log, newest first: every change (publish, unpublish, deprecate, dist-tag,
owner, token, user, tenant and settings changes, retention removals, advisories, webhooks) and
every refused attempt at one, with who, from where, when, on what and the outcome.

Options:
  --user <name>        Only what this user did (or tried)
  --package <name>     Only changes of this package
  --action <action>    Only this action (owner.add) or group (owner)
  --outcome <outcome>  success, refused or failed
  --since <time>       From this day (2026-11-27) or ISO time on
  --until <time>       Up to this day or ISO time
  --limit <n>          At most n entries (default 100, at most 1000)
  --before <id>        Entries older than this id (the next page)
  --tenant <name>      A tenant registry's log (default: the global registry's)
  --json               Print JSON: {entries, next}
  --data <dir>         Data directory of the registry (as for serve)
  --config <file>      Config file of the registry (as for serve)
`;

const OPTIONS = {
  ...STORAGE_OPTIONS,
  tenant: { type: 'string' },
  json: { type: 'boolean' },
  user: { type: 'string' },
  package: { type: 'string' },
  action: { type: 'string' },
  outcome: { type: 'string' },
  since: { type: 'string' },
  until: { type: 'string' },
  limit: { type: 'string' },
  before: { type: 'string' },
} as const;

/** `pkg-registry audit`: reads the audit log. Returns the exit code. */
export function auditCommand(argv: string[], io: AdminIo): Promise<number> {
  return runAdmin(io, 'audit', async () => {
    const { values, positionals } = parseArgs({ args: argv, options: OPTIONS, strict: true, allowPositionals: true });
    if (positionals.length > 0) throw new AdminUsageError(`unexpected argument '${positionals[0]}'`);
    let query;
    try {
      query = parseAuditQuery(values);
    } catch (err) {
      throw new AdminUsageError((err as Error).message.replace(/'(\w+)'/, '--$1'));
    }
    const { storage } = await openStorage(values, io);
    try {
      const tenant = values.tenant ?? GLOBAL_TENANT;
      if (values.tenant !== undefined) await new TenantAdmin(storage).require(values.tenant);
      const entries = await new AuditTrail({ ...storage, now: () => new Date() }).query(tenant, query);
      const next = entries.length === query.limit ? (entries.at(-1)?.id ?? null) : null;
      if (values.json) io.stdout.write(`${JSON.stringify({ entries, next }, null, 2)}\n`);
      else if (entries.length === 0) io.stdout.write('No audit entries match.\n');
      else {
        io.stdout.write(formatTable([['TIME', 'ACTION', 'OUTCOME', 'WHO', 'FROM', 'TARGET', 'REASON'], ...entries.map(row)]));
        if (next !== null) io.stdout.write(`More: --before ${next}\n`);
      }
      return 0;
    } finally {
      await storage.close();
    }
  });
}

function row(entry: AuditEntry): string[] {
  const who =
    entry.user !== null
      ? `${entry.user}${entry.tokenId ? ` (token ${entry.tokenId})` : ''}`
      : entry.via === 'cli'
        ? `operator ${typeof entry.details.operator === 'string' ? entry.details.operator : ''}`.trim()
        : entry.via === 'server'
          ? 'the server'
          : '-';
  return [entry.at, entry.action, entry.outcome, who, entry.address ?? '-', entry.target, entry.reason ?? ''];
}
