import { SETTINGS } from './config/settings.js';
import { serve } from './serve.js';

const USAGE = `Usage: pkg-registry <command> [options]

Commands:
  serve          Start the registry server
  help           Show this help

Options of serve (each also comes from the config file and PKG_REGISTRY_<NAME>):
  --config <file>            JSON config file (env PKG_REGISTRY_CONFIG)
${SETTINGS.map((s) => `  ${`${s.flag} <value>`.padEnd(27)}${s.description.split('. ')[0]!.replace(/\.$/, '')}`).join('\n')}
`;

/** Entry of the `pkg-registry` binary; returns the exit code (0 ok, 1 failure, 2 usage/config). */
export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'serve':
      return serve(rest);
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      process.stdout.write(USAGE);
      return command === undefined ? 2 : 0;
    default:
      process.stderr.write(`Error: unknown command '${command}'\n\n${USAGE}`);
      return 2;
  }
}
