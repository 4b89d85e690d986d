import { ProtocolError, userNotFound } from '@pkg/protocol';
import type { ServerDeps } from '../deps.js';
import { parsePackageRule, prefixesOverlap, ruleCovers } from '../config/package-rules.js';
import type { TenantId } from '../storage/ports.js';
import type { TeamRecord } from '../storage/team-store.js';
import { isAdministrator } from './administrators.js';

/**
 * Who asks for a change of teams: a user of the registry (over HTTP), or the server's operator
 * on the command line (`user: null`), who administers every registry.
 */
export interface TeamActor {
  user: string | null;
  administrator: boolean;
}

/** The server's operator (`pkg-registry team …`). */
export const OPERATOR: TeamActor = { user: null, administrator: true };

const TEAM_NAME = /^[a-z0-9][a-z0-9_-]{0,62}$/;
/** Fewest labels of a namespace a user who is not an administrator may claim (`com.studio.*`, not `com.*`). */
const MIN_USER_LABELS = 2;
/** Packages named in a refusal: enough to act on, not the whole registry. */
const NAMED = 3;

export type TeamServiceDeps = Pick<ServerDeps, 'teams' | 'registry' | 'packages' | 'now'>;

/**
 * Teams that own namespaces. Only a team's members and administrators may publish a new package
 * in a namespace the team owns (the longest namespace that holds the name decides); a package
 * that exists keeps its own maintainers (`npm owner`). Members manage their team; a namespace
 * that overlaps another team's, or holds packages published by someone outside the team, needs
 * an administrator.
 */
export class TeamService {
  readonly #deps: TeamServiceDeps;

  constructor(deps: TeamServiceDeps) {
    this.#deps = deps;
  }

  /** The actor a signed-in user is: an administrator of this registry or not. */
  async actor(tenant: TenantId, user: string): Promise<TeamActor> {
    return { user, administrator: await isAdministrator(this.#deps.registry.users, tenant, user) };
  }

  list(tenant: TenantId): Promise<TeamRecord[]> {
    return this.#deps.teams.list(tenant);
  }

  teamsOf(tenant: TenantId, user: string): Promise<TeamRecord[]> {
    return this.#deps.teams.teamsOf(tenant, user);
  }

  async get(tenant: TenantId, name: string): Promise<TeamRecord> {
    const team = await this.#deps.teams.get(tenant, checkTeamName(name));
    if (!team) throw noTeam(name);
    return team;
  }

  /** Creates a team; a user who creates one is its first member. */
  async create(tenant: TenantId, actor: TeamActor, name: string): Promise<TeamRecord> {
    checkTeamName(name);
    const members = actor.user === null ? [] : [actor.user];
    const createdAt = this.#deps.now().toISOString();
    if (!(await this.#deps.teams.create(tenant, name, createdAt, members))) {
      if (await this.#deps.teams.get(tenant, name)) throw new ProtocolError('CONFLICT', `Team '${name}' exists already`);
      throw new ProtocolError('NOT_FOUND', 'This registry no longer exists');
    }
    return this.get(tenant, name);
  }

  /** Deletes a team: its namespaces are free again (packages in them keep their maintainers). */
  async delete(tenant: TenantId, actor: TeamActor, name: string): Promise<TeamRecord> {
    const team = await this.#managed(tenant, actor, name);
    if (!(await this.#deps.teams.delete(tenant, team.name))) throw noTeam(name);
    return team;
  }

  async addMember(tenant: TenantId, actor: TeamActor, name: string, user: string): Promise<TeamRecord> {
    const team = await this.#managed(tenant, actor, name);
    if (user.length > 128 || !(await this.#deps.registry.users.get(tenant, user))) {
      throw userNotFound(user);
    }
    if (!(await this.#deps.teams.addMember(tenant, team.name, user))) throw noTeam(name);
    return this.get(tenant, name);
  }

  async removeMember(tenant: TenantId, actor: TeamActor, name: string, user: string): Promise<TeamRecord> {
    const team = await this.#managed(tenant, actor, name);
    if (!(await this.#deps.teams.removeMember(tenant, team.name, user))) {
      throw new ProtocolError('NOT_FOUND', `'${user.slice(0, 128)}' is not a member of team '${name}'`);
    }
    return this.get(tenant, name);
  }

  /**
   * Gives the team a namespace. A namespace another team owns is refused to everyone; one that
   * overlaps another team's, holds packages published by someone outside the team, or is wider
   * than `<a>.<b>.*` needs an administrator.
   */
  async claim(tenant: TenantId, actor: TeamActor, name: string, namespace: string): Promise<TeamRecord> {
    const prefix = checkNamespace(namespace);
    const team = await this.#managed(tenant, actor, name);
    const others = (await this.#deps.teams.list(tenant)).filter((other) => other.name !== team.name);
    const exact = others.find((other) => other.namespaces.includes(namespace));
    if (exact) throw new ProtocolError('CONFLICT', `'${namespace}' is owned by team '${exact.name}'`);
    if (!actor.administrator) {
      if (prefix.split('.').length < MIN_USER_LABELS) {
        throw new ProtocolError(
          'FORBIDDEN',
          `'${namespace}' is too wide to claim without an administrator: name at least ${MIN_USER_LABELS} labels, such as 'com.studio.*'`,
        );
      }
      for (const other of others) {
        const overlapping = other.namespaces.find((owned) => prefixesOverlap(owned.slice(0, -2), prefix));
        if (overlapping) {
          throw new ProtocolError(
            'FORBIDDEN',
            `'${namespace}' overlaps '${overlapping}' of team '${other.name}': only an administrator can give it to team '${team.name}'`,
          );
        }
      }
      const foreign = await this.#publishedByOthers(tenant, namespace, team.members);
      if (foreign.length > 0) {
        throw new ProtocolError(
          'FORBIDDEN',
          `'${namespace}' holds packages published by users outside team '${team.name}' (${foreign.join(', ')}): only an administrator can give it to the team`,
        );
      }
    }
    const outcome = await this.#deps.teams.claim(tenant, team.name, namespace);
    if (!outcome.claimed) {
      if (outcome.owner === null) throw noTeam(name);
      if (outcome.owner !== team.name) throw new ProtocolError('CONFLICT', `'${namespace}' is owned by team '${outcome.owner}'`);
    }
    return this.get(tenant, name);
  }

  /** Frees a namespace of the team: anyone may publish new packages in it again. */
  async release(tenant: TenantId, actor: TeamActor, name: string, namespace: string): Promise<TeamRecord> {
    checkNamespace(namespace);
    const team = await this.#managed(tenant, actor, name);
    if (!(await this.#deps.teams.release(tenant, team.name, namespace))) {
      throw new ProtocolError('NOT_FOUND', `Team '${team.name}' does not own '${namespace}'`);
    }
    return this.get(tenant, name);
  }

  /**
   * Refuses a new package in a namespace owned by a team `user` is not a member of (403 naming
   * the team), unless `user` administers the registry. Packages that exist are not asked:
   * their maintainers decide.
   */
  async requireMayCreate(tenant: TenantId, user: string, name: string): Promise<void> {
    const owner = await this.#deps.teams.ownerOf(tenant, name);
    if (owner === undefined || owner.members.includes(user)) return;
    if (await isAdministrator(this.#deps.registry.users, tenant, user)) return;
    throw new ProtocolError(
      'FORBIDDEN',
      `'${name}' is in the namespace '${owner.namespace}' of team '${owner.team}': only its members and administrators may publish new packages there`,
    );
  }

  /** The team, when `actor` may change it: an administrator or one of its members. */
  async #managed(tenant: TenantId, actor: TeamActor, name: string): Promise<TeamRecord> {
    const team = await this.get(tenant, name);
    if (!actor.administrator && !team.members.includes(actor.user ?? '')) {
      throw new ProtocolError('FORBIDDEN', `Only members of team '${team.name}' and administrators may change it`);
    }
    return team;
  }

  /** Packages of the namespace with a maintainer outside `members` (the first few, as `name (user)`). */
  async #publishedByOthers(tenant: TenantId, namespace: string, members: readonly string[]): Promise<string[]> {
    const { packages } = this.#deps;
    const found: string[] = [];
    const names = await packages.listPackageNames(tenant, { includeUnpublished: true });
    for (const name of names) {
      if (!ruleCovers(namespace, name)) continue;
      const stored = await packages.package(tenant, name).read();
      const outsider = stored?.document.maintainers.find((maintainer) => !members.includes(maintainer.name));
      if (outsider) found.push(`${name} by ${outsider.name}`);
      if (found.length === NAMED) break;
    }
    return found;
  }
}

/** A team as the HTTP API and `pkg-registry team --json` show it. */
export function shownTeam(team: TeamRecord) {
  return { name: team.name, created: team.createdAt, members: team.members, namespaces: team.namespaces };
}

function checkTeamName(name: string): string {
  if (!TEAM_NAME.test(name)) {
    throw new ProtocolError(
      'VALIDATION_ERROR',
      `Invalid team name '${name.slice(0, 80)}': use 1-63 lowercase letters, digits, '-' or '_', starting with a letter or digit`,
    );
  }
  return name;
}

/** The prefix of a namespace written `<prefix>.*`, or 422. */
function checkNamespace(namespace: string): string {
  const rule = parsePackageRule(namespace);
  if (rule?.kind !== 'namespace') {
    throw new ProtocolError(
      'VALIDATION_ERROR',
      `'${namespace.slice(0, 80)}' is not a namespace: write it '<prefix>.*', such as 'com.studio.*'`,
    );
  }
  return rule.prefix;
}

function noTeam(name: string): ProtocolError {
  return new ProtocolError('NOT_FOUND', `There is no team '${name.slice(0, 80)}' in this registry`);
}
