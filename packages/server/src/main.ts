import { registryRelease } from './release.js';
import { SETTINGS } from './config/settings.js';
import { placeholder, serveHelp } from './serve-help.js';

const USAGE = `Usage: pkg-registry <command> [options]

Commands:
  serve          Start the registry server
  migrate        Copy a whole registry to another database/storage (migrate --help)
  tenant         Create, list, configure and delete tenant registries ('pkg-registry tenant help')
  user           List, disable, enable users and reset passwords ('pkg-registry user help')
  team           Teams of users that own namespaces ('pkg-registry team help')
  keys           List and rotate the signing keys, verify stored versions ('pkg-registry keys help')
  backup         Take a consistent copy of the registry while it serves ('pkg-registry backup --help')
  restore        Bring a backup back into an empty registry and verify it
  verify         Check every version's tarball is present and matches its integrity
  storage        Bytes and counts per tenant and package; collect orphan tarballs ('pkg-registry storage help')
  audit          Read the audit log: every change and refused attempt ('pkg-registry audit help')
  webhook        Add, list, remove webhooks; deliveries, redeliver, rotate-secret ('pkg-registry webhook help')
  help           Show this help (serve --help: every option of serve)
  version        Print the version (also --version, -v)

Options of serve (each also comes from the config file and PKG_REGISTRY_<NAME>; defaults,
allowed values and environment variables: pkg-registry serve --help):
${optionLines([['--config <file>', 'JSON config file (env PKG_REGISTRY_CONFIG)'], ...SETTINGS.map((s) => [`${s.flag} ${placeholder(s)}`, s.description.split('. ')[0]!.replace(/\.$/, '')] as const)])}
`;

/** One line per option, every description in the column after the longest option. */
function optionLines(options: readonly (readonly [string, string])[]): string {
  const width = Math.max(...options.map(([option]) => option.length)) + 2;
  return options.map(([option, description]) => `  ${option.padEnd(width)}${description}`).join('\n');
}

const HELP = new Set(['help', '--help', '-h']);

/**
 * Entry of the `pkg-registry` binary; returns the exit code (0 ok, 1 failure, 2 usage/config).
 * Each command's modules load when it runs: a server holds every module it loaded for its whole
 * life, and the admin commands bring PostgreSQL's driver (about 3 MiB of heap) into the embedded
 * default that never uses it.
 */
export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'serve':
      return rest.includes('--help') || rest.includes('-h')
        ? help(serveHelp(), '--help')
        : (await import('./serve.js')).serve(rest);
    case 'migrate':
      return (await import('./admin/migrate-command.js')).migrateCommand(rest, process);
    case 'tenant': {
      const { TENANT_USAGE, tenantCommand } = await import('./admin/tenant-command.js');
      return HELP.has(rest[0] ?? 'help') ? help(TENANT_USAGE, rest[0]) : tenantCommand(rest, await adminIo());
    }
    case 'user': {
      const { USER_USAGE, userCommand } = await import('./admin/user-command.js');
      return HELP.has(rest[0] ?? 'help') ? help(USER_USAGE, rest[0]) : userCommand(rest, await adminIo());
    }
    case 'team': {
      const { TEAM_USAGE, teamCommand } = await import('./admin/team-command.js');
      return HELP.has(rest[0] ?? 'help') ? help(TEAM_USAGE, rest[0]) : teamCommand(rest, await adminIo());
    }
    case 'keys': {
      const { KEYS_USAGE, keysCommand } = await import('./admin/keys-command.js');
      return HELP.has(rest[0] ?? 'help') ? help(KEYS_USAGE, rest[0]) : keysCommand(rest, await adminIo());
    }
    case 'storage': {
      const { STORAGE_USAGE, storageCommand } = await import('./admin/storage-command.js');
      return HELP.has(rest[0] ?? '') ? help(STORAGE_USAGE, rest[0]) : storageCommand(rest, await adminIo());
    }
    case 'audit': {
      const { AUDIT_USAGE, auditCommand } = await import('./admin/audit-command.js');
      return HELP.has(rest[0] ?? '') ? help(AUDIT_USAGE, rest[0]) : auditCommand(rest, await adminIo());
    }
    case 'webhook': {
      const { WEBHOOK_USAGE, webhookCommand } = await import('./admin/webhook-command.js');
      return HELP.has(rest[0] ?? 'help') ? help(WEBHOOK_USAGE, rest[0]) : webhookCommand(rest, await adminIo());
    }
    case 'backup':
    case 'restore':
    case 'verify': {
      const commands = await import('./admin/backup-command.js');
      if (rest.some((arg) => HELP.has(arg))) return help(commands.BACKUP_USAGE, '--help');
      const run = { backup: commands.backupCommand, restore: commands.restoreCommand, verify: commands.verifyCommand }[command];
      return run(rest, await adminIo());
    }
    case '--version':
    case '-v':
    case 'version':
      process.stdout.write(`${registryRelease()}\n`);
      return 0;
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      return help(USAGE, command);
    default:
      process.stderr.write(`Error: unknown command '${command}'\n\n${USAGE}`);
      return 2;
  }
}

async function adminIo() {
  return (await import('./admin/admin-io.js')).processAdminIo;
}

/** Help asked for is exit 0; help shown because nothing was asked is a usage error, 2. */
function help(text: string, asked: string | undefined): number {
  process.stdout.write(text);
  return asked === undefined ? 2 : 0;
}
