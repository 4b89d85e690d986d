import type Database from 'better-sqlite3';
import type { TenantId } from '../../ports.js';
import {
  assembleTeams,
  candidateNamespaces,
  longest,
  type ClaimOutcome,
  type NamespaceOwner,
  type TeamRecord,
  type TeamStore,
} from '../../team-store.js';
import { AttachedDatabase } from './attached-database.js';
import type { SqlitePackageWriteHook } from './sqlite-metadata-store.js';

type Db = Database.Database;

export const TEAM_MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE teams (
    tenant TEXT NOT NULL,
    name TEXT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (tenant, name)
  ) WITHOUT ROWID;
  CREATE TABLE team_members (
    tenant TEXT NOT NULL,
    team TEXT NOT NULL,
    member TEXT NOT NULL,
    PRIMARY KEY (tenant, team, member)
  ) WITHOUT ROWID;
  CREATE INDEX team_members_by_member ON team_members (tenant, member);
  CREATE TABLE team_namespaces (
    tenant TEXT NOT NULL,
    namespace TEXT NOT NULL,
    team TEXT NOT NULL,
    PRIMARY KEY (tenant, namespace)
  ) WITHOUT ROWID;
  CREATE INDEX team_namespaces_by_team ON team_namespaces (tenant, team);
  `,
];

const TABLES = ['team_members', 'team_namespaces', 'teams'] as const;

/** Teams in the SQLite database: one row per team, membership and namespace. */
export class SqliteTeams implements TeamStore {
  readonly #db = new AttachedDatabase('SqliteTeams');

  readonly writeHook: SqlitePackageWriteHook = {
    name: 'teams',
    migrations: TEAM_MIGRATIONS,
    onWrite: () => undefined,
    onTenantDelete: (db, tenant) => {
      for (const table of TABLES) db.prepare(`DELETE FROM ${table} WHERE tenant = ?`).run(tenant);
    },
  };

  attach(db: Db): void {
    this.#db.attach(db);
  }

  async list(tenant: TenantId): Promise<TeamRecord[]> {
    return this.#read(tenant, undefined);
  }

  async get(tenant: TenantId, name: string): Promise<TeamRecord | undefined> {
    return this.#read(tenant, [name])[0];
  }

  async teamsOf(tenant: TenantId, user: string): Promise<TeamRecord[]> {
    const names = this.#db
      .statement('SELECT team FROM team_members WHERE tenant = ? AND member = ?')
      .pluck()
      .all(tenant, user) as string[];
    return names.length === 0 ? [] : this.#read(tenant, names);
  }

  async create(tenant: TenantId, name: string, createdAt: string, members: readonly string[]): Promise<boolean> {
    return this.#write(() => {
      const created = this.#db
        .statement(
          `INSERT INTO teams (tenant, name, created_at)
           SELECT ?, ?, ? WHERE ? = '' OR EXISTS (SELECT 1 FROM tenants WHERE name = ?)
           ON CONFLICT (tenant, name) DO NOTHING`,
        )
        .run(tenant, name, createdAt, tenant, tenant);
      if (created.changes === 0) return false;
      for (const member of new Set(members)) this.#insertMember(tenant, name, member);
      return true;
    });
  }

  async delete(tenant: TenantId, name: string): Promise<boolean> {
    return this.#write(() => {
      this.#db.statement('DELETE FROM team_members WHERE tenant = ? AND team = ?').run(tenant, name);
      this.#db.statement('DELETE FROM team_namespaces WHERE tenant = ? AND team = ?').run(tenant, name);
      return this.#db.statement('DELETE FROM teams WHERE tenant = ? AND name = ?').run(tenant, name).changes > 0;
    });
  }

  async addMember(tenant: TenantId, team: string, user: string): Promise<boolean> {
    return this.#write(() => {
      if (!this.#exists(tenant, team)) return false;
      this.#insertMember(tenant, team, user);
      return true;
    });
  }

  async removeMember(tenant: TenantId, team: string, user: string): Promise<boolean> {
    const removed = this.#db
      .statement('DELETE FROM team_members WHERE tenant = ? AND team = ? AND member = ?')
      .run(tenant, team, user);
    return removed.changes > 0;
  }

  async forgetUser(tenant: TenantId, user: string): Promise<number> {
    return this.#db.statement('DELETE FROM team_members WHERE tenant = ? AND member = ?').run(tenant, user).changes;
  }

  async claim(tenant: TenantId, team: string, namespace: string): Promise<ClaimOutcome> {
    return this.#write((): ClaimOutcome => {
      if (!this.#exists(tenant, team)) return { claimed: false, owner: null };
      const owner = this.#db
        .statement('SELECT team FROM team_namespaces WHERE tenant = ? AND namespace = ?')
        .pluck()
        .get(tenant, namespace) as string | undefined;
      if (owner !== undefined) return { claimed: false, owner };
      this.#db.statement('INSERT INTO team_namespaces (tenant, namespace, team) VALUES (?, ?, ?)').run(tenant, namespace, team);
      return { claimed: true };
    });
  }

  async release(tenant: TenantId, team: string, namespace: string): Promise<boolean> {
    const released = this.#db
      .statement('DELETE FROM team_namespaces WHERE tenant = ? AND namespace = ? AND team = ?')
      .run(tenant, namespace, team);
    return released.changes > 0;
  }

  async ownerOf(tenant: TenantId, name: string): Promise<NamespaceOwner | undefined> {
    const candidates = candidateNamespaces(name);
    if (candidates.length === 0) return undefined;
    const rows = this.#db
      .statement('SELECT namespace, team FROM team_namespaces WHERE tenant = ? AND namespace IN (SELECT value FROM json_each(?))')
      .all(tenant, JSON.stringify(candidates)) as { namespace: string; team: string }[];
    const found = longest(rows);
    if (found === undefined) return undefined;
    const members = this.#db
      .statement('SELECT member FROM team_members WHERE tenant = ? AND team = ? ORDER BY member')
      .pluck()
      .all(tenant, found.team) as string[];
    return { team: found.team, namespace: found.namespace, members };
  }

  /** The teams of the tenant (all, or those named), read in one transaction so that they agree. */
  #read(tenant: TenantId, names: readonly string[] | undefined): TeamRecord[] {
    const filter = names === undefined ? '' : ' AND {team} IN (SELECT value FROM json_each(?))';
    const args = names === undefined ? [tenant] : [tenant, JSON.stringify(names)];
    const read = this.#db.require().transaction(() =>
      assembleTeams(
        this.#db
          .statement(`SELECT name, created_at FROM teams WHERE tenant = ?${filter.replace('{team}', 'name')}`)
          .all(...args) as {
          name: string;
          created_at: string;
        }[],
        this.#db
          .statement(`SELECT team, member FROM team_members WHERE tenant = ?${filter.replace('{team}', 'team')}`)
          .all(...args) as {
          team: string;
          member: string;
        }[],
        this.#db
          .statement(`SELECT team, namespace FROM team_namespaces WHERE tenant = ?${filter.replace('{team}', 'team')}`)
          .all(...args) as { team: string; namespace: string }[],
      ),
    );
    return read();
  }

  #exists(tenant: TenantId, team: string): boolean {
    return this.#db.statement('SELECT 1 FROM teams WHERE tenant = ? AND name = ?').get(tenant, team) !== undefined;
  }

  #insertMember(tenant: TenantId, team: string, member: string): void {
    this.#db
      .statement('INSERT INTO team_members (tenant, team, member) VALUES (?, ?, ?) ON CONFLICT DO NOTHING')
      .run(tenant, team, member);
  }

  /** One write transaction, IMMEDIATE: the admin command line may write from another process. */
  #write<T>(work: () => T): T {
    return this.#db.require().transaction(work).immediate();
  }
}
