import type pg from 'pg';
import { inTransaction } from './pg-connection.js';
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
import type { PostgresPackageWriteHook } from './postgres-metadata-store.js';

export const POSTGRES_TEAM_MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE teams (
    tenant text NOT NULL,
    name text NOT NULL,
    created_at text NOT NULL,
    PRIMARY KEY (tenant, name)
  );
  CREATE TABLE team_members (
    tenant text NOT NULL,
    team text NOT NULL,
    member text NOT NULL,
    PRIMARY KEY (tenant, team, member)
  );
  CREATE INDEX team_members_by_member ON team_members (tenant, member);
  CREATE TABLE team_namespaces (
    tenant text NOT NULL,
    namespace text NOT NULL,
    team text NOT NULL,
    PRIMARY KEY (tenant, namespace)
  );
  CREATE INDEX team_namespaces_by_team ON team_namespaces (tenant, team);
  `,
];

const TABLES = ['team_members', 'team_namespaces', 'teams'] as const;

/** Teams in PostgreSQL: every node decides publishes by the same ones. */
export class PostgresTeams implements TeamStore {
  #pool: pg.Pool | undefined;

  readonly writeHook: PostgresPackageWriteHook = {
    name: 'teams',
    migrations: POSTGRES_TEAM_MIGRATIONS,
    onWrite: async () => undefined,
    onTenantDelete: async (client, tenant) => {
      for (const table of TABLES) await client.query(`DELETE FROM ${table} WHERE tenant = $1`, [tenant]);
    },
  };

  attach(pool: pg.Pool): void {
    this.#pool = pool;
  }

  async list(tenant: TenantId): Promise<TeamRecord[]> {
    return this.#read(tenant, undefined);
  }

  async get(tenant: TenantId, name: string): Promise<TeamRecord | undefined> {
    return (await this.#read(tenant, [name]))[0];
  }

  async teamsOf(tenant: TenantId, user: string): Promise<TeamRecord[]> {
    const { rows } = await this.#requirePool().query<{ team: string }>(
      'SELECT team FROM team_members WHERE tenant = $1 AND member = $2',
      [tenant, user],
    );
    return rows.length === 0
      ? []
      : this.#read(
          tenant,
          rows.map((row) => row.team),
        );
  }

  async create(tenant: TenantId, name: string, createdAt: string, members: readonly string[]): Promise<boolean> {
    return inTransaction(this.#requirePool(), async (client) => {
      // The tenant's row is held until commit: a concurrent tenant delete waits, then removes the team too.
      if (tenant !== '' && (await client.query('SELECT 1 FROM tenants WHERE name = $1 FOR SHARE', [tenant])).rowCount === 0)
        return false;
      const created = await client.query(
        'INSERT INTO teams (tenant, name, created_at) VALUES ($1, $2, $3) ON CONFLICT (tenant, name) DO NOTHING',
        [tenant, name, createdAt],
      );
      if (created.rowCount === 0) return false;
      if (members.length > 0) {
        await client.query(
          'INSERT INTO team_members (tenant, team, member) SELECT $1, $2, unnest($3::text[]) ON CONFLICT DO NOTHING',
          [tenant, name, [...new Set(members)]],
        );
      }
      return true;
    });
  }

  async delete(tenant: TenantId, name: string): Promise<boolean> {
    return inTransaction(this.#requirePool(), async (client) => {
      // The team's row first: it waits for a claim or an addition holding it, then their rows go too.
      const deleted = await client.query('DELETE FROM teams WHERE tenant = $1 AND name = $2', [tenant, name]);
      await client.query('DELETE FROM team_members WHERE tenant = $1 AND team = $2', [tenant, name]);
      await client.query('DELETE FROM team_namespaces WHERE tenant = $1 AND team = $2', [tenant, name]);
      return (deleted.rowCount ?? 0) > 0;
    });
  }

  async addMember(tenant: TenantId, team: string, user: string): Promise<boolean> {
    return inTransaction(this.#requirePool(), async (client) => {
      if (!(await lockTeam(client, tenant, team))) return false;
      await client.query('INSERT INTO team_members (tenant, team, member) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING', [
        tenant,
        team,
        user,
      ]);
      return true;
    });
  }

  async removeMember(tenant: TenantId, team: string, user: string): Promise<boolean> {
    const removed = await this.#requirePool().query('DELETE FROM team_members WHERE tenant = $1 AND team = $2 AND member = $3', [
      tenant,
      team,
      user,
    ]);
    return (removed.rowCount ?? 0) > 0;
  }

  async forgetUser(tenant: TenantId, user: string): Promise<number> {
    const removed = await this.#requirePool().query('DELETE FROM team_members WHERE tenant = $1 AND member = $2', [tenant, user]);
    return removed.rowCount ?? 0;
  }

  async claim(tenant: TenantId, team: string, namespace: string): Promise<ClaimOutcome> {
    return inTransaction(this.#requirePool(), async (client): Promise<ClaimOutcome> => {
      if (!(await lockTeam(client, tenant, team))) return { claimed: false, owner: null };
      // The primary key settles two claims of one namespace at once: one inserts, the other reads the winner.
      const inserted = await client.query(
        'INSERT INTO team_namespaces (tenant, namespace, team) VALUES ($1, $2, $3) ON CONFLICT (tenant, namespace) DO NOTHING',
        [tenant, namespace, team],
      );
      if ((inserted.rowCount ?? 0) > 0) return { claimed: true };
      const { rows } = await client.query<{ team: string }>(
        'SELECT team FROM team_namespaces WHERE tenant = $1 AND namespace = $2',
        [tenant, namespace],
      );
      return { claimed: false, owner: rows[0]?.team ?? team };
    });
  }

  async release(tenant: TenantId, team: string, namespace: string): Promise<boolean> {
    const released = await this.#requirePool().query(
      'DELETE FROM team_namespaces WHERE tenant = $1 AND namespace = $2 AND team = $3',
      [tenant, namespace, team],
    );
    return (released.rowCount ?? 0) > 0;
  }

  async ownerOf(tenant: TenantId, name: string): Promise<NamespaceOwner | undefined> {
    const candidates = candidateNamespaces(name);
    if (candidates.length === 0) return undefined;
    const { rows } = await this.#requirePool().query<{ namespace: string; team: string; members: string[] }>(
      `SELECT n.namespace, n.team,
              COALESCE((SELECT array_agg(m.member ORDER BY m.member COLLATE "C") FROM team_members m
                        WHERE m.tenant = n.tenant AND m.team = n.team), '{}') AS members
       FROM team_namespaces n WHERE n.tenant = $1 AND n.namespace = ANY($2::text[])`,
      [tenant, candidates],
    );
    const found = longest(rows);
    return found && { team: found.team, namespace: found.namespace, members: found.members };
  }

  /**
   * The teams of the tenant (all, or those named). One statement, so one snapshot: the members
   * and namespaces agree with the teams, and a backup's snapshot session (which must not begin
   * or end a transaction) reads them too.
   */
  async #read(tenant: TenantId, names: readonly string[] | undefined): Promise<TeamRecord[]> {
    const { rows } = await this.#requirePool().query<{
      name: string;
      created_at: string;
      members: string[];
      namespaces: string[];
    }>(
      `SELECT t.name, t.created_at,
              COALESCE((SELECT array_agg(m.member) FROM team_members m WHERE m.tenant = t.tenant AND m.team = t.name), '{}') AS members,
              COALESCE((SELECT array_agg(n.namespace) FROM team_namespaces n WHERE n.tenant = t.tenant AND n.team = t.name), '{}') AS namespaces
       FROM teams t WHERE t.tenant = $1${names === undefined ? '' : ' AND t.name = ANY($2::text[])'}`,
      names === undefined ? [tenant] : [tenant, [...names]],
    );
    return assembleTeams(
      rows,
      rows.flatMap((row) => row.members.map((member) => ({ team: row.name, member }))),
      rows.flatMap((row) => row.namespaces.map((namespace) => ({ team: row.name, namespace }))),
    );
  }

  #requirePool(): pg.Pool {
    if (!this.#pool) throw new Error('PostgresTeams is not attached to a pool');
    return this.#pool;
  }
}

/** Holds the team's row until commit (a concurrent delete waits); false when there is no such team. */
async function lockTeam(client: pg.ClientBase, tenant: TenantId, team: string): Promise<boolean> {
  const { rowCount } = await client.query('SELECT 1 FROM teams WHERE tenant = $1 AND name = $2 FOR SHARE', [tenant, team]);
  return (rowCount ?? 0) > 0;
}
