import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { AdminUsageError, TenantAdmin } from '../services/tenant-admin.js';
import { configuredBaseUrl } from '../config/public-url.js';
import { INVITATION_PATH, Invitations } from '../services/invitations.js';
import { UserAdmin, registryName, summaryOfUser } from '../services/user-admin.js';
import { GLOBAL_TENANT } from '../storage/ports.js';
import { STORAGE_OPTIONS, formatTable, openStorage, runAdmin, type AdminIo } from './admin-io.js';
import { recordOperatorChange } from './operator-changes.js';

export const USER_USAGE = `Usage: pkg-registry user <command> [options]

Commands:
  list [--json]                Accounts of the registry
  create <name>                Create an account (works while sign-up is closed); prints a
                               generated password unless --password-stdin
      --email <address>        Its e-mail address
      --admin                  Make it an administrator of the registry
  invite                       Print a one-time link (valid for invitationTtl) on which a person
                               chooses a name and password; works while sign-up is closed
      --email <address>        Suggest this e-mail address
      --admin                  The account it creates is an administrator
      --url <base>             The registry's address as users reach it (default: publicUrl)
  delete <name>                Delete an account: its tokens are revoked, its packages stay
  grant-admin <name>           Make a user an administrator of the registry
  revoke-admin <name>          Withdraw the administrator role
  disable <name>               Refuse the user's logins and revoke all of its tokens
  enable <name>                Allow a disabled user again
  reset-password <name>        Set a new password, print it, and revoke the user's tokens
      --password-stdin         Read the new password from stdin instead of generating one
                               (create too)

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
  email: { type: 'string' },
  admin: { type: 'boolean' },
  url: { type: 'string' },
} as const;

const NEEDS_NAME = new Set(['disable', 'enable', 'reset-password', 'create', 'delete', 'grant-admin', 'revoke-admin']);
const TAKES_PASSWORD = new Set(['reset-password', 'create']);

/** `pkg-registry user list|create|invite|delete|disable|enable|reset-password|grant-admin|revoke-admin`. Returns the exit code. */
export function userCommand(argv: string[], io: AdminIo): Promise<number> {
  return runAdmin(io, 'user', async () => {
    const { values, positionals } = parseArgs({ args: argv, options: OPTIONS, strict: true, allowPositionals: true });
    const [action, name, ...extra] = positionals;
    if (extra.length > 0) throw new AdminUsageError(`unexpected argument '${extra[0]}'`);
    if (action === 'list' || action === 'invite') {
      if (name !== undefined) throw new AdminUsageError(`unexpected argument '${name}'`);
    } else if (action !== undefined && NEEDS_NAME.has(action)) {
      if (name === undefined) throw new AdminUsageError(`'user ${action}' needs a user name`);
    } else {
      throw new AdminUsageError(action === undefined ? 'a user command is required' : `unknown user command '${action}'`);
    }
    if (values['password-stdin'] && !TAKES_PASSWORD.has(action)) {
      throw new AdminUsageError('--password-stdin only goes with create and reset-password');
    }
    for (const flag of ['email', 'admin'] as const) {
      if (values[flag] !== undefined && action !== 'create' && action !== 'invite') {
        throw new AdminUsageError(`--${flag} only goes with create and invite`);
      }
    }
    if (values.url !== undefined && action !== 'invite') throw new AdminUsageError('--url only goes with invite');
    // Read stdin before opening the database: nothing is held open while a person types.
    const password = TAKES_PASSWORD.has(action) ? await newPassword(values['password-stdin'] === true, io) : undefined;

    const { config, storage } = await openStorage(values, io);
    try {
      const tenant = values.tenant ?? GLOBAL_TENANT;
      if (values.tenant !== undefined) await new TenantAdmin(storage).require(values.tenant);
      const users = new UserAdmin(storage.registry, { ...config, teams: storage.teams });
      const registry = registryName(tenant);
      switch (action) {
        case 'create': {
          const user = await users.create(tenant, {
            name: name!,
            email: values.email,
            password: password!.value,
            admin: values.admin,
          });
          const role = user.admin ? 'administrator' : 'user';
          await recordOperatorChange(storage, tenant, {
            action: 'user.create',
            target: `user ${name}`,
            details: { admin: user.admin === true },
          });
          if (password!.generated) {
            io.stdout.write(`${password!.value}\n`);
            io.stderr.write(`Created ${role} '${name}' of ${registry}; its password is printed above.\n`);
          } else {
            io.stdout.write(`Created ${role} '${name}' of ${registry}.\n`);
          }
          return 0;
        }
        case 'invite': {
          const base = values.url ?? configuredBaseUrl(config, tenant);
          if (base === undefined || !/^https?:\/\/[^/]+/.test(base)) {
            throw new AdminUsageError(
              base === undefined
                ? "invite needs the registry's address as users reach it: pass --url https://… or set publicUrl"
                : `--url must be an http(s) address, not '${base.slice(0, 80)}'`,
            );
          }
          const invitations = new Invitations(storage.registry, {
            ttlSeconds: config.invitationTtl,
            passwordMinLength: config.passwordMinLength,
            now: () => new Date(),
          });
          const invitation = await invitations.create(tenant, {
            invitedBy: 'the operator',
            email: values.email,
            admin: values.admin,
          });
          await recordOperatorChange(storage, tenant, {
            action: 'user.invite',
            target: 'invitation',
            details: { admin: values.admin === true, expiresAt: invitation.expiresAt },
          });
          // Only the link on stdout, so that a script can capture it.
          io.stdout.write(`${base.replace(/\/+$/, '')}${INVITATION_PATH}${invitation.secret}\n`);
          io.stderr.write(`Invitation to ${registry}, good once until ${invitation.expiresAt}: send the link above.\n`);
          return 0;
        }
        case 'delete': {
          const revoked = await users.delete(tenant, name!);
          await recordOperatorChange(storage, tenant, {
            action: 'user.delete',
            target: `user ${name}`,
            details: { tokensRevoked: revoked },
          });
          io.stdout.write(
            `Deleted user '${name}' of ${registry} and revoked ${revoked} tokens; its packages stay (maintainers lists still name it).\n`,
          );
          return 0;
        }
        case 'grant-admin':
        case 'revoke-admin': {
          const admin = action === 'grant-admin';
          await users.setAdmin(tenant, name!, admin);
          await recordOperatorChange(storage, tenant, { action: `user.${action}`, target: `user ${name}` });
          io.stdout.write(
            `User '${name}' ${admin ? 'is now an administrator' : 'is no longer an administrator'} of ${registry}.\n`,
          );
          return 0;
        }
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
          const shown = list.map(summaryOfUser);
          if (values.json) io.stdout.write(`${JSON.stringify(shown, null, 2)}\n`);
          else if (shown.length === 0) io.stdout.write(`No users in ${registry}.\n`);
          else {
            io.stdout.write(
              formatTable([
                ['NAME', 'EMAIL', 'CREATED', 'STATUS', 'ROLE'],
                ...shown.map((u) => [
                  u.name,
                  u.email || '-',
                  u.createdAt,
                  u.disabled ? 'disabled' : 'active',
                  u.admin ? 'administrator' : 'user',
                ]),
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
