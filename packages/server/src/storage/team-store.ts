import type { TenantId } from './ports.js';
import { enclosingPrefixes } from '../config/package-rules.js';

/** A team of one registry: its members and the namespaces it owns. */
export interface TeamRecord {
  /** `[a-z0-9][a-z0-9_-]*`, unique in the registry. */
  name: string;
  createdAt: string;
  /** User names, sorted. */
  members: string[];
  /** Namespaces written `<prefix>.*` (the uplinks' form), sorted. */
  namespaces: string[];
}

/** The team that owns the namespace deciding about a package name. */
export interface NamespaceOwner {
  team: string;
  /** The namespace, `<prefix>.*`. */
  namespace: string;
  members: string[];
}

/** What a claim of a namespace came to. */
export type ClaimOutcome =
  | { claimed: true }
  /** The team does not exist (deleted meanwhile, or with its tenant). */
  | { claimed: false; owner: null }
  /** Another team, or this one, owns that very namespace already. */
  | { claimed: false; owner: string };

/**
 * Teams, their members and namespaces, per registry, in the metadata database (every node sees
 * the same ones). A namespace belongs to at most one team; whether a claim may overlap another
 * team's namespace is the service's decision, not the store's. Deleting a tenant forgets its
 * teams; nothing is ever written to a tenant that does not exist.
 */
export interface TeamStore {
  /** Every team of the registry, sorted by name. */
  list(tenant: TenantId): Promise<TeamRecord[]>;
  get(tenant: TenantId, name: string): Promise<TeamRecord | undefined>;
  /** The teams `user` is a member of, sorted by name. */
  teamsOf(tenant: TenantId, user: string): Promise<TeamRecord[]>;
  /** Creates the team with these first members; false when it exists already or the tenant does not. */
  create(tenant: TenantId, name: string, createdAt: string, members: readonly string[]): Promise<boolean>;
  /** Deletes the team with its memberships and namespaces; false when there was none. */
  delete(tenant: TenantId, name: string): Promise<boolean>;
  /** False when the team does not exist; true when `user` is a member afterwards. */
  addMember(tenant: TenantId, team: string, user: string): Promise<boolean>;
  /** False when `user` was not a member of the team. */
  removeMember(tenant: TenantId, team: string, user: string): Promise<boolean>;
  /** Forgets `user` in every team of the registry (the account was deleted); returns how many. */
  forgetUser(tenant: TenantId, user: string): Promise<number>;
  /** Gives the team `namespace` (`<prefix>.*`), unless a team owns it already or the team does not exist. */
  claim(tenant: TenantId, team: string, namespace: string): Promise<ClaimOutcome>;
  /** False when the team did not own `namespace`. */
  release(tenant: TenantId, team: string, namespace: string): Promise<boolean>;
  /**
   * The owner of the longest namespace that holds the package name, or undefined when no team
   * owns one (asked of every new package's publish: one indexed read).
   */
  ownerOf(tenant: TenantId, name: string): Promise<NamespaceOwner | undefined>;
}

/**
 * Team records from the rows of the three tables (SQL drivers), sorted in one order on every
 * driver: by code unit, whatever the database's collation.
 */
export function assembleTeams(
  teams: readonly { name: string; created_at: string }[],
  members: readonly { team: string; member: string }[],
  namespaces: readonly { team: string; namespace: string }[],
): TeamRecord[] {
  const byTeam = new Map<string, TeamRecord>();
  for (const row of teams) byTeam.set(row.name, { name: row.name, createdAt: row.created_at, members: [], namespaces: [] });
  for (const row of members) byTeam.get(row.team)?.members.push(row.member);
  for (const row of namespaces) byTeam.get(row.team)?.namespaces.push(row.namespace);
  const records = [...byTeam.values()];
  for (const record of records) {
    record.members.sort(codeUnitOrder);
    record.namespaces.sort(codeUnitOrder);
  }
  return records.sort((a, b) => codeUnitOrder(a.name, b.name));
}

export function codeUnitOrder(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Every namespace of `name`'s enclosing prefixes, longest first, in the stored form `<prefix>.*`. */
export function candidateNamespaces(name: string): string[] {
  return [...enclosingPrefixes(name)].map((prefix) => `${prefix}.*`);
}

/** The row of the longest namespace (the one that decides about a name). */
export function longest<T extends { namespace: string }>(rows: readonly T[]): T | undefined {
  let found: T | undefined;
  for (const row of rows) if (found === undefined || row.namespace.length > found.namespace.length) found = row;
  return found;
}
