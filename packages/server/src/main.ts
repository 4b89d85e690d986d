import { processAdminIo } from './admin/admin-io.js';
import { TENANT_USAGE, tenantCommand } from './admin/tenant-command.js';
import { USER_USAGE, userCommand } from './admin/user-command.js';
import { SETTINGS } from './config/settings.js';
import { serve } from './serve.js';
import { migrateCommand } from './admin/migrate-command.js';

const USAGE = `Usage: pkg-registry <command> [options]

Commands:
  serve          Start the registry server
  migrate        Copy a whole registry to another database/storage (migrate --help)
  tenant         Create, list, configure and delete tenant registries ('pkg-registry tenant help')
  user           List, disable, enable users and reset passwords ('pkg-registry user help')
  help           Show this help

Options of serve (each also comes from the config file and PKG_REGISTRY_<NAME>):
  --config <file>            JSON config file (env PKG_REGISTRY_CONFIG)
${SETTINGS.map((s) => `  ${`${s.flag} <value>`.padEnd(27)}${s.description.split('. ')[0]!.replace(/\.$/, '')}`).join('\n')}
`;

const HELP = new Set(['help', '--help', '-h']);

/** Entry of the `pkg-registry` binary; returns the exit code (0 ok, 1 failure, 2 usage/config). */
export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'serve':
      return rest.includes('--help') || rest.includes('-h') ? help(USAGE, '--help') : serve(rest);
    case 'migrate':
      return migrateCommand(rest, process);
    case 'tenant':
      return HELP.has(rest[0] ?? 'help') ? help(TENANT_USAGE, rest[0]) : tenantCommand(rest, processAdminIo);
    case 'user':
      return HELP.has(rest[0] ?? 'help') ? help(USER_USAGE, rest[0]) : userCommand(rest, processAdminIo);
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

/** Help asked for is exit 0; help shown because nothing was asked is a usage error, 2. */
function help(text: string, asked: string | undefined): number {
  process.stdout.write(text);
  return asked === undefined ? 2 : 0;
}
