import { parseArgs } from 'node:util';
import { coerceSetting } from '../config/config.js';
import { AdminUsageError, TenantAdmin } from '../services/tenant-admin.js';
import type { TenantRecord, TenantSettings } from '../storage/ports.js';
import { STORAGE_OPTIONS, formatTable, openStorage, runAdmin, type AdminIo } from './admin-io.js';
import { recordOperatorChange } from './operator-changes.js';
import { GLOBAL_TENANT } from '../storage/ports.js';

export const TENANT_USAGE = `Usage: pkg-registry tenant <command> [options]

Commands:
  create <name> [settings]   Create a tenant registry, served at <name>.<registryDomain>
  list [--json]              List tenants and their own settings
  set <name> <settings>      Change a tenant's settings ('default' removes its own value)
  delete <name>              Delete a tenant with all its users, tokens, packages and tarballs

Settings (unset ones follow the server's configuration):
  --signup true|false                 Whether logging in as an unknown user creates the account
  --read-access anonymous|token       Whether reads need a token
  --require-two-factor true|false     Whether publishing needs an account with two-factor sign-in
  --rate-limit-anonymous <n>          Requests per hour per client IP without a token (0: no limit)
  --rate-limit-authenticated <n>      Requests per hour per user (0: no limit)
  --rate-limit-publish <n>            Publishes per hour per user (0: no limit)
  --quota-bytes <n>                   Most bytes of tarballs the tenant may hold (0: no quota)
  --quota-packages <n>                Most packages the tenant may hold (0: no quota)
  --uplinks '<json>'                  Upstream registries and the packages served from them (uplinks.md)

Options:
  --data <dir>       Data directory of the registry (as for serve)
  --config <file>    Config file of the registry (as for serve)

Works while the server runs; a change takes effect there within a second.
`;

/** Tenant settings flag → setting key (the same keys, rules and meaning as the server's settings). */
const SETTING_FLAGS = {
  signup: 'signup',
  'read-access': 'readAccess',
  'require-two-factor': 'requireTwoFactor',
  'rate-limit-anonymous': 'rateLimitAnonymous',
  'rate-limit-authenticated': 'rateLimitAuthenticated',
  'rate-limit-publish': 'rateLimitPublish',
  'quota-bytes': 'quotaBytes',
  'quota-packages': 'quotaPackages',
  uplinks: 'uplinks',
} as const satisfies Record<string, keyof TenantSettings>;

const OPTIONS = {
  ...STORAGE_OPTIONS,
  json: { type: 'boolean' },
  ...Object.fromEntries(Object.keys(SETTING_FLAGS).map((flag) => [flag, { type: 'string' }])),
} as const;

/** `pkg-registry tenant create|list|set|delete`. Returns the exit code. */
export function tenantCommand(argv: string[], io: AdminIo): Promise<number> {
  return runAdmin(io, 'tenant', async () => {
    const { values, positionals } = parseArgs({ args: argv, options: OPTIONS, strict: true, allowPositionals: true });
    const [action, name, ...extra] = positionals;
    if (extra.length > 0) throw new AdminUsageError(`unexpected argument '${extra[0]}'`);
    const settings = settingsFrom(values, action === 'set');
    if (action !== 'create' && action !== 'set' && Object.keys(settings).length > 0) {
      throw new AdminUsageError(`settings flags only go with 'tenant create' and 'tenant set'`);
    }
    if (action === 'list') {
      if (name !== undefined) throw new AdminUsageError(`unexpected argument '${name}'`);
    } else if (action === 'create' || action === 'set' || action === 'delete') {
      if (name === undefined) throw new AdminUsageError(`'tenant ${action}' needs a tenant name`);
    } else {
      throw new AdminUsageError(action === undefined ? 'a tenant command is required' : `unknown tenant command '${action}'`);
    }

    const { config, storage } = await openStorage(values, io, { create: action === 'create' });
    try {
      const admin = new TenantAdmin(storage);
      const where = (tenant: string) =>
        config.registryDomain
          ? `served at ${tenant}.${config.registryDomain}`
          : 'not reachable until the registryDomain setting is configured';
      switch (action) {
        case 'create': {
          const tenant = await admin.create(name!, settings);
          await recordOperatorChange(storage, GLOBAL_TENANT, {
            action: 'tenant.create',
            target: `tenant ${tenant.name}`,
            details: { settings },
          });
          io.stdout.write(`Created tenant '${tenant.name}' (${describeSettings(tenant.settings)}), ${where(tenant.name)}.\n`);
          return 0;
        }
        case 'set': {
          if (Object.keys(settings).length === 0) throw new AdminUsageError(`'tenant set' needs at least one setting flag`);
          const tenant = await admin.configure(name!, settings);
          await recordOperatorChange(storage, GLOBAL_TENANT, {
            action: 'tenant.settings',
            target: `tenant ${tenant.name}`,
            details: { settings },
          });
          io.stdout.write(`Tenant '${tenant.name}' now has ${describeSettings(tenant.settings)}.\n`);
          return 0;
        }
        case 'delete': {
          const removed = await admin.delete(name!);
          // In the global registry's log: the tenant's own log goes with it.
          await recordOperatorChange(storage, GLOBAL_TENANT, {
            action: 'tenant.delete',
            target: `tenant ${name}`,
            details: removed,
          });
          io.stdout.write(
            `Deleted tenant '${name}' with ${count(removed.users, 'user')}, ${count(removed.packages, 'package')} and ${count(removed.tarballs, 'tarball')}.\n`,
          );
          return 0;
        }
        default: {
          const tenants = await admin.list();
          if (values.json) io.stdout.write(`${JSON.stringify(tenants, null, 2)}\n`);
          else if (tenants.length === 0) io.stdout.write('No tenants.\n');
          else io.stdout.write(formatTable([['NAME', 'CREATED', 'SETTINGS'], ...tenants.map(row)]));
          return 0;
        }
      }
    } finally {
      await storage.close();
    }
  });
}

/** Settings from the flags, checked with the server's own rules; `default` means "remove" for `set`. */
function settingsFrom(values: Record<string, unknown>, allowDefault: boolean): Record<string, unknown> {
  const settings: Record<string, unknown> = {};
  for (const [flag, key] of Object.entries(SETTING_FLAGS)) {
    const raw = values[flag];
    if (raw === undefined) continue;
    if (allowDefault && raw === 'default') settings[key] = null;
    else settings[key] = coerceSetting(key, raw);
  }
  return settings;
}

function row(tenant: TenantRecord): string[] {
  return [tenant.name, tenant.createdAt, describeSettings(tenant.settings)];
}

function describeSettings(settings: TenantSettings): string {
  const parts = Object.entries(settings).map(
    ([key, value]) => `${key}=${typeof value === 'object' ? JSON.stringify(value) : String(value)}`,
  );
  return parts.length > 0 ? parts.join(', ') : 'server defaults';
}

/** `1 user`, `2 users`. */
function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}
