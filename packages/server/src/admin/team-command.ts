import { recordOperatorChange } from './operator-changes.js';
import { teamChange, type TeamChangeKind } from '../services/team-changes.js';
import { parseArgs } from 'node:util';
import { ProtocolError } from '@pkg/protocol';
import { AdminError, AdminUsageError, TenantAdmin } from '../services/tenant-admin.js';
import { OPERATOR, TeamService, shownTeam as shown } from '../services/team-service.js';
import { GLOBAL_TENANT } from '../storage/ports.js';
import type { TeamRecord } from '../storage/team-store.js';
import { STORAGE_OPTIONS, formatTable, openStorage, runAdmin, type AdminIo } from './admin-io.js';

export const TEAM_USAGE = `Usage: pkg-registry team <command> [options]

Commands:
  list [--json]                     Teams of the registry with their members and namespaces
  create <team>                     A new team, without members
  delete <team>                     Delete a team; its namespaces are free again
  add <team> <user>                 Make a user of the registry a member
  remove <team> <user>              End a membership
  claim <team> <prefix>.*           Give the team a namespace: only its members (and
                                    administrators) publish new packages in it
  release <team> <prefix>.*         Free a namespace of the team

Options:
  --tenant <name>    Act on a tenant registry (default: the global registry)
  --json             Print the team (or the list) as JSON
  --data <dir>       Data directory of the registry (as for serve)
  --config <file>    Config file of the registry (as for serve)

The operator administers: a claim may overlap another team's namespace (the longest namespace
that holds a name decides) and hold packages others publish (they keep publishing them); only a
namespace another team owns exactly is refused. Works while the server runs: every change counts
from the next publish.
`;

const OPTIONS = { ...STORAGE_OPTIONS, tenant: { type: 'string' }, json: { type: 'boolean' } } as const;

/** Each command and the names it takes after the team. */
const ARGUMENTS: Record<string, readonly string[]> = {
  list: [],
  create: ['team'],
  delete: ['team'],
  add: ['team', 'user'],
  remove: ['team', 'user'],
  claim: ['team', 'namespace'],
  release: ['team', 'namespace'],
};

/** `pkg-registry team list|create|delete|add|remove|claim|release`. Returns the exit code. */
export function teamCommand(argv: string[], io: AdminIo): Promise<number> {
  return runAdmin(io, 'team', async () => {
    const { values, positionals } = parseArgs({ args: argv, options: OPTIONS, strict: true, allowPositionals: true });
    const [action, ...args] = positionals;
    const wanted = action === undefined ? undefined : ARGUMENTS[action];
    if (wanted === undefined) {
      throw new AdminUsageError(action === undefined ? 'a team command is required' : `unknown team command '${action}'`);
    }
    if (args.length < wanted.length) throw new AdminUsageError(`'team ${action}' needs ${wanted.map((w) => `<${w}>`).join(' ')}`);
    if (args.length > wanted.length) throw new AdminUsageError(`unexpected argument '${args[wanted.length]}'`);
    const [team, other] = args as [string, string];

    const { storage } = await openStorage(values, io);
    try {
      const tenant = values.tenant ?? GLOBAL_TENANT;
      if (values.tenant !== undefined) await new TenantAdmin(storage).require(values.tenant);
      const registry = tenant === GLOBAL_TENANT ? 'the global registry' : `tenant '${tenant}'`;
      const teams = new TeamService({ ...storage, now: () => new Date() });
      if (action === 'list') {
        const list = await teams.list(tenant);
        if (values.json) io.stdout.write(`${JSON.stringify(list.map(shown), null, 2)}\n`);
        else if (list.length === 0) io.stdout.write(`No teams in ${registry}.\n`);
        else {
          io.stdout.write(
            formatTable([
              ['TEAM', 'NAMESPACES', 'MEMBERS'],
              ...list.map((t) => [t.name, t.namespaces.join(' ') || '-', t.members.join(' ') || '-']),
            ]),
          );
        }
        return 0;
      }
      const changes: Record<string, () => Promise<TeamRecord>> = {
        create: () => teams.create(tenant, OPERATOR, team),
        delete: () => teams.delete(tenant, OPERATOR, team),
        add: () => teams.addMember(tenant, OPERATOR, team, other),
        remove: () => teams.removeMember(tenant, OPERATOR, team, other),
        claim: () => teams.claim(tenant, OPERATOR, team, other),
        release: () => teams.release(tenant, OPERATOR, team, other),
      };
      const result = await changes[action!]!().catch(asAdminError);
      await recordOperatorChange(storage, tenant, teamChange(action as TeamChangeKind, team, other));
      if (values.json) io.stdout.write(`${JSON.stringify(shown(result), null, 2)}\n`);
      else io.stdout.write(`${done(action!, team, other, registry)}\n`);
      return 0;
    } finally {
      await storage.close();
    }
  });
}

function done(action: string, team: string, other: string, registry: string): string {
  switch (action) {
    case 'create':
      return `Created team '${team}' in ${registry}.`;
    case 'delete':
      return `Deleted team '${team}' of ${registry}; its namespaces are free.`;
    case 'add':
      return `Added '${other}' to team '${team}' of ${registry}.`;
    case 'remove':
      return `Removed '${other}' from team '${team}' of ${registry}.`;
    case 'claim':
      return `Team '${team}' of ${registry} owns '${other}': only its members publish new packages there.`;
    default:
      return `Team '${team}' of ${registry} no longer owns '${other}'.`;
  }
}

/** A refusal of the service as the command line reports it: a name that cannot be valid is a usage mistake. */
function asAdminError(err: unknown): never {
  if (err instanceof ProtocolError) {
    const message = err.details.charAt(0).toLowerCase() + err.details.slice(1);
    throw err.code === 'VALIDATION_ERROR' ? new AdminUsageError(message) : new AdminError(message);
  }
  throw err;
}
