import type { Routes } from '../http/routes.js';
import type { RouteRequest } from '../http/route-request.js';
import { ProtocolError } from '@pkg/protocol';
import type { Caller } from '../context.js';
import type { Services } from '../services/services.js';
import { shownTeam as shown, type TeamActor } from '../services/team-service.js';
import { noteChange } from '../plugins/change-recording.js';
import { teamChange } from '../services/team-changes.js';
import { requireCaller, requireWriter } from './guards.js';
import { requireWriteCode } from './second-factor-guard.js';

type TeamParams = { team: string };
type MemberParams = { team: string; user: string };
type NamespaceParams = { team: string; namespace: string };

/**
 * Teams that own namespaces, `/-/pkg/v1/teams`: any signed-in user reads them and creates one
 * (becoming its first member); members and administrators change a team. Each change is a write:
 * a read-only, publish-only or package-limited token is refused, and a user whose two factors
 * guard writes is asked for a code.
 */
export function teamRoutes(app: Routes, { services }: { services: Services }): void {
  /** The caller as the actor of a change of teams, after every check of its token. */
  const changer = async (request: RouteRequest, why: string): Promise<TeamActor> => {
    const caller = unlimited(requireWriter(request));
    await requireWriteCode(services, request, caller, why);
    return services.teams.actor(request.ctx.tenant, caller.user);
  };

  app.get('/-/pkg/v1/teams', async (request) => {
    requireCaller(request);
    return { teams: (await services.teams.list(request.ctx.tenant)).map(shown) };
  });

  app.get<{ Params: TeamParams }>('/-/pkg/v1/teams/:team', async (request) => {
    requireCaller(request);
    return shown(await services.teams.get(request.ctx.tenant, request.params.team));
  });

  app.post('/-/pkg/v1/teams', async (request, reply) => {
    const actor = await changer(request, 'Creating a team');
    const body = request.body as { name?: unknown } | undefined;
    if (typeof body?.name !== 'string') throw new ProtocolError('BAD_REQUEST', "The body must be JSON with the team's 'name'");
    const team = await services.teams.create(request.ctx.tenant, actor, body.name);
    noteChange(request, teamChange('create', team.name));
    reply.code(201);
    return shown(team);
  });

  app.delete<{ Params: TeamParams }>('/-/pkg/v1/teams/:team', async (request) => {
    const actor = await changer(request, 'Deleting a team');
    const team = await services.teams.delete(request.ctx.tenant, actor, request.params.team);
    noteChange(request, teamChange('delete', team.name));
    return shown(team);
  });

  app.put<{ Params: MemberParams }>('/-/pkg/v1/teams/:team/members/:user', async (request) => {
    const actor = await changer(request, 'Changing a team');
    const { team, user } = request.params;
    const changed = await services.teams.addMember(request.ctx.tenant, actor, team, user);
    noteChange(request, teamChange('add', team, user));
    return shown(changed);
  });

  app.delete<{ Params: MemberParams }>('/-/pkg/v1/teams/:team/members/:user', async (request) => {
    const actor = await changer(request, 'Changing a team');
    const { team, user } = request.params;
    const changed = await services.teams.removeMember(request.ctx.tenant, actor, team, user);
    noteChange(request, teamChange('remove', team, user));
    return shown(changed);
  });

  app.put<{ Params: NamespaceParams }>('/-/pkg/v1/teams/:team/namespaces/:namespace', async (request) => {
    const actor = await changer(request, 'Claiming a namespace');
    const { team, namespace } = request.params;
    const changed = await services.teams.claim(request.ctx.tenant, actor, team, namespace);
    noteChange(request, teamChange('claim', team, namespace));
    return shown(changed);
  });

  app.delete<{ Params: NamespaceParams }>('/-/pkg/v1/teams/:team/namespaces/:namespace', async (request) => {
    const actor = await changer(request, 'Releasing a namespace');
    const { team, namespace } = request.params;
    const changed = await services.teams.release(request.ctx.tenant, actor, team, namespace);
    noteChange(request, teamChange('release', team, namespace));
    return shown(changed);
  });
}

/** A token limited to some packages acts on those packages only: teams need another token. */
function unlimited(caller: Caller): Caller {
  if (caller.scope?.packages !== undefined) {
    throw new ProtocolError(
      'FORBIDDEN',
      `This token is limited to ${caller.scope.packages.join(', ')}: changing teams needs a token without a package limit`,
    );
  }
  return caller;
}
