import type { TenantId } from '../../ports.js';
import {
  candidateNamespaces,
  codeUnitOrder,
  type ClaimOutcome,
  type NamespaceOwner,
  type TeamRecord,
  type TeamStore,
} from '../../team-store.js';
import type { MemoryPackageWriteHook } from './memory-metadata-store.js';

interface MemoryTeam {
  createdAt: string;
  members: Set<string>;
  namespaces: Set<string>;
}

/** Teams in process memory: the memory storage's driver. */
export class MemoryTeams implements TeamStore {
  /** tenant → team name → team. */
  readonly #tenants = new Map<TenantId, Map<string, MemoryTeam>>();
  readonly #tenantExists: (tenant: TenantId) => boolean;

  readonly writeHook: MemoryPackageWriteHook = {
    onWrite: () => undefined,
    onTenantDelete: (tenant) => {
      this.#tenants.delete(tenant);
    },
  };

  constructor(tenantExists: (tenant: TenantId) => boolean = () => true) {
    this.#tenantExists = tenantExists;
  }

  async list(tenant: TenantId): Promise<TeamRecord[]> {
    return [...this.#teams(tenant)].map(([name, team]) => shown(name, team)).sort((a, b) => codeUnitOrder(a.name, b.name));
  }

  async get(tenant: TenantId, name: string): Promise<TeamRecord | undefined> {
    const team = this.#tenants.get(tenant)?.get(name);
    return team && shown(name, team);
  }

  async teamsOf(tenant: TenantId, user: string): Promise<TeamRecord[]> {
    return (await this.list(tenant)).filter((team) => team.members.includes(user));
  }

  async create(tenant: TenantId, name: string, createdAt: string, members: readonly string[]): Promise<boolean> {
    if (!this.#tenantExists(tenant)) return false;
    let teams = this.#tenants.get(tenant);
    if (teams === undefined) this.#tenants.set(tenant, (teams = new Map<string, MemoryTeam>()));
    if (teams.has(name)) return false;
    teams.set(name, { createdAt, members: new Set(members), namespaces: new Set() });
    return true;
  }

  async delete(tenant: TenantId, name: string): Promise<boolean> {
    return this.#tenants.get(tenant)?.delete(name) ?? false;
  }

  async addMember(tenant: TenantId, team: string, user: string): Promise<boolean> {
    const found = this.#tenants.get(tenant)?.get(team);
    found?.members.add(user);
    return found !== undefined;
  }

  async removeMember(tenant: TenantId, team: string, user: string): Promise<boolean> {
    return this.#tenants.get(tenant)?.get(team)?.members.delete(user) ?? false;
  }

  async forgetUser(tenant: TenantId, user: string): Promise<number> {
    let count = 0;
    for (const [, team] of this.#teams(tenant)) if (team.members.delete(user)) count++;
    return count;
  }

  async claim(tenant: TenantId, team: string, namespace: string): Promise<ClaimOutcome> {
    const found = this.#tenants.get(tenant)?.get(team);
    if (found === undefined) return { claimed: false, owner: null };
    for (const [name, other] of this.#teams(tenant)) {
      if (other.namespaces.has(namespace)) return { claimed: false, owner: name };
    }
    found.namespaces.add(namespace);
    return { claimed: true };
  }

  async release(tenant: TenantId, team: string, namespace: string): Promise<boolean> {
    return this.#tenants.get(tenant)?.get(team)?.namespaces.delete(namespace) ?? false;
  }

  async ownerOf(tenant: TenantId, name: string): Promise<NamespaceOwner | undefined> {
    const teams = this.#tenants.get(tenant);
    if (teams === undefined) return undefined;
    for (const namespace of candidateNamespaces(name)) {
      for (const [team, found] of teams) {
        if (found.namespaces.has(namespace)) return { team, namespace, members: [...found.members].sort(codeUnitOrder) };
      }
    }
    return undefined;
  }

  #teams(tenant: TenantId): Iterable<[string, MemoryTeam]> {
    return this.#tenants.get(tenant) ?? [];
  }
}

function shown(name: string, team: MemoryTeam): TeamRecord {
  return {
    name,
    createdAt: team.createdAt,
    members: [...team.members].sort(codeUnitOrder),
    namespaces: [...team.namespaces].sort(codeUnitOrder),
  };
}
