import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { AdminUsageError, TenantAdmin } from '../services/tenant-admin.js';
import { UserAdmin } from '../services/user-admin.js';
import { GLOBAL_TENANT } from '../storage/ports.js';
import { STORAGE_OPTIONS, formatTable, openStorage, runAdmin, type AdminIo } from './admin-io.js';
import { recordOperatorChange } from './operator-changes.js';

export const USER_USAGE = `Usage: pkg-registry user <command> [options]

Commands:
  list [--json]                Accounts of the registry
  disable <name>               Refuse the user's logins and revoke all of its tokens
  enable <name>                Allow a disabled user again
  reset-password <name>        Set a new password, print it, and revoke the user's tokens
      --password-stdin         Read the new password from stdin instead of generating one

Options:
  --tenant <name>    Act on a tenant registry (default: the global registry)
  --data <dir>       Data directory of the registry (as for serve)
  --config <file>    Config file of the registry (as for serve)

Works while the server runs: disabling or revoking takes effect with the next request.
`;

const OPTIONS = {
  ...STORAGE_OPTIONS,
  tenant: { type: 'string' },
  json: { type: 'boolean' },
  'password-stdin': { type: 'boolean' },
} as const;

const NEEDS_NAME = new Set(['disable', 'enable', 'reset-password']);

/** `pkg-registry user list|disable|enable|reset-password`. Returns the exit code. */
export function userCommand(argv: string[], io: AdminIo): Promise<number> {
  return runAdmin(io, 'user', async () => {
    const { values, positionals } = parseArgs({ args: argv, options: OPTIONS, strict: true, allowPositionals: true });
    const [action, name, ...extra] = positionals;
    if (extra.length > 0) throw new AdminUsageError(`unexpected argument '${extra[0]}'`);
    if (action === 'list') {
      if (name !== undefined) throw new AdminUsageError(`unexpected argument '${name}'`);
    } else if (action !== undefined && NEEDS_NAME.has(action)) {
      if (name === undefined) throw new AdminUsageError(`'user ${action}' needs a user name`);
    } else {
      throw new AdminUsageError(action === undefined ? 'a user command is required' : `unknown user command '${action}'`);
    }
    if (values['password-stdin'] && action !== 'reset-password') {
      throw new AdminUsageError('--password-stdin only goes with reset-password');
    }
    // Read stdin before opening the database: nothing is held open while a person types.
    const password = action === 'reset-password' ? await newPassword(values['password-stdin'] === true, io) : undefined;

    const { storage } = await openStorage(values, io);
    try {
      const tenant = values.tenant ?? GLOBAL_TENANT;
      if (values.tenant !== undefined) await new TenantAdmin(storage).require(values.tenant);
      const users = new UserAdmin(storage.registry);
      const registry = tenant === GLOBAL_TENANT ? 'the global registry' : `tenant '${tenant}'`;
      switch (action) {
        case 'disable': {
          const revoked = await users.setDisabled(tenant, name!, true);
          await recordOperatorChange(storage, tenant, {
            action: 'user.disable',
            target: `user ${name}`,
            details: { tokensRevoked: revoked },
          });
          io.stdout.write(`Disabled user '${name}' of ${registry} and revoked ${revoked} tokens.\n`);
          return 0;
        }
        case 'enable': {
          await users.setDisabled(tenant, name!, false);
          await recordOperatorChange(storage, tenant, { action: 'user.enable', target: `user ${name}` });
          io.stdout.write(`Enabled user '${name}' of ${registry}.\n`);
          return 0;
        }
        case 'reset-password': {
          const revoked = await users.resetPassword(tenant, name!, password!.value);
          await recordOperatorChange(storage, tenant, {
            action: 'user.password',
            target: `user ${name}`,
            details: { tokensRevoked: revoked },
          });
          if (password!.generated) {
            // Only the password on stdout, so that a script can capture it.
            io.stdout.write(`${password!.value}\n`);
            io.stderr.write(`New password of '${name}' of ${registry} printed above; ${revoked} tokens revoked.\n`);
          } else {
            io.stdout.write(`Password of '${name}' of ${registry} reset; ${revoked} tokens revoked.\n`);
          }
          return 0;
        }
        default: {
          const list = await users.list(tenant);
          const shown = list.map(({ name: n, email, createdAt, disabled }) => ({ name: n, email, createdAt, disabled }));
          if (values.json) io.stdout.write(`${JSON.stringify(shown, null, 2)}\n`);
          else if (shown.length === 0) io.stdout.write(`No users in ${registry}.\n`);
          else {
            io.stdout.write(
              formatTable([
                ['NAME', 'EMAIL', 'CREATED', 'STATUS'],
                ...shown.map((u) => [u.name, u.email || '-', u.createdAt, u.disabled ? 'disabled' : 'active']),
              ]),
            );
          }
          return 0;
        }
      }
    } finally {
      await storage.close();
    }
  });
}

/** 144 random bits as 24 URL-safe characters, or the first line of stdin. */
async function newPassword(fromStdin: boolean, io: AdminIo): Promise<{ value: string; generated: boolean }> {
  if (!fromStdin) return { value: randomBytes(18).toString('base64url'), generated: true };
  const line = (await io.readStdin()).split(/\r?\n/)[0] ?? '';
  if (line.length === 0) throw new AdminUsageError('--password-stdin: stdin holds no password');
  return { value: line, generated: false };
}
