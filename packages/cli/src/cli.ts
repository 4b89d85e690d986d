import { Command as Program, CommanderError, Option } from 'commander';
import type { Deps } from './deps.js';
import { COMMANDS } from './commands/index.js';
import type { Command, CommandArgs } from './commands/types.js';
import { CommandContext } from './context.js';
import { ClientError, EXIT, type ExitCode } from './errors/client-errors.js';
import { toErrorReport } from './output/error-report.js';
import { Reporter } from './output/reporter.js';

const GLOBAL_HELP = `
Environment:
  PKG_REGISTRY          registry to use when no --registry is given (overrides the config file)
  PKG_TOKEN             token to send to the registry in effect instead of the stored one (for CI)
  UPM_USER_CONFIG_FILE  Unity's user config with registry tokens (default: ~/.upmconfig.toml)
  PKG_CONFIG_DIR        directory of config.json (default: the platform's config directory)
  PKG_DATA_DIR          directory of stored tokens and global packages
  HTTPS_PROXY, HTTP_PROXY, NO_PROXY   proxies; NODE_EXTRA_CA_CERTS: extra trusted CAs

Exit codes: 0 success, 1 the operation failed, 2 wrong usage.
Run \`pkg <command> --help\` for a command's options.`;

interface Invocation {
  command: Command;
  input: CommandArgs;
}

/**
 * Runs one `pkg` invocation with the given IO and returns its exit code. Parses with
 * commander (which only parses and renders help here), runs the command, and hands its
 * result or failure to the reporter.
 */
export async function runCli(argv: string[], deps: Deps): Promise<ExitCode> {
  const beforeDashes = argv.includes('--') ? argv.slice(0, argv.indexOf('--')) : argv;
  const reporter = new Reporter({
    stdout: deps.stdout,
    stderr: deps.stderr,
    json: beforeDashes.includes('--json'),
    verbose: beforeDashes.includes('--verbose'),
    env: deps.env,
  });
  // `pkg` alone is `pkg --help`: the same text and exit code.
  if (argv.length === 0) argv = ['--help'];

  let invocation: Invocation | undefined;
  const program = buildProgram(deps, reporter, (found) => {
    invocation = found;
  });
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (err) {
    if (err instanceof CommanderError) {
      if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.exitCode === 0) return EXIT.OK;
      const command = argv.find((a) => COMMANDS.some((c) => c.name === a));
      reporter.error(
        toErrorReport(new ClientError('USAGE', { problem: usageMessage(err.message), command: command ? `${command} ` : '' })),
      );
      return EXIT.USAGE;
    }
    const report = toErrorReport(err);
    reporter.error(report);
    return report.exitCode;
  }
  if (!invocation) return EXIT.USAGE;

  const registryFlag = invocation.input.options.registry;
  const otpFlag = invocation.input.options.otp;
  const ctx = new CommandContext(deps, reporter, typeof registryFlag === 'string' ? registryFlag : undefined, {
    ...(typeof otpFlag === 'string' ? { otp: otpFlag } : {}),
    documentFreshness: invocation.command.documentFreshness?.(invocation.input) ?? 'revalidate',
  });
  try {
    const result = await invocation.command.run(ctx, invocation.input);
    reporter.result(result);
    return result.exitCode ?? EXIT.OK;
  } catch (err) {
    const report = toErrorReport(err);
    if (report.code === 'INTERNAL' && err instanceof Error && err.stack) reporter.debug(err.stack);
    reporter.error(report);
    return report.exitCode;
  } finally {
    await ctx.close();
  }
}

function buildProgram(deps: Deps, reporter: Reporter, found: (invocation: Invocation) => void): Program {
  const program = new Program('pkg')
    .description('Client of pkg-registry: log in, search and inspect packages, manage Unity project dependencies.')
    .version(deps.version, '-v, --version', 'print the version of pkg')
    .helpOption('-h, --help', 'show help')
    .helpCommand('help [command]', 'show help for a command')
    .addHelpText('after', GLOBAL_HELP);
  configure(program, reporter);

  for (const command of COMMANDS) {
    const sub = program
      .command(command.name)
      .summary(command.summary)
      .description(command.description ?? command.summary);
    configure(sub, reporter);
    for (const arg of command.arguments ?? []) {
      const name = `${arg.name}${arg.variadic ? '...' : ''}`;
      sub.argument(arg.required ? `<${name}>` : `[${name}]`, arg.description);
    }
    for (const spec of command.options ?? []) {
      const option = new Option(spec.flags, spec.description);
      if (spec.default !== undefined) option.default(spec.default);
      if (spec.parse) option.argParser(spec.parse);
      sub.addOption(option);
    }
    sub.option('--json', 'print the result as JSON (errors too)');
    sub.option('--verbose', 'trace registry requests on stderr (tokens are never shown)');
    sub.helpOption('-h, --help', 'show help for this command');
    if (command.helpText) sub.addHelpText('after', `\n${command.helpText}`);
    if (command.examples?.length) {
      sub.addHelpText('after', `\nExamples:\n${command.examples.map((e) => `  ${e}`).join('\n')}`);
    }
    sub.action((...values: unknown[]) => {
      const specs = command.arguments ?? [];
      const args: Record<string, string | string[] | undefined> = {};
      specs.forEach((spec, index) => {
        args[spec.name] = values[index] as string | string[] | undefined;
      });
      const options = (values[specs.length] ?? {}) as Record<string, unknown>;
      found({ command, input: { args, options } });
    });
  }
  return program;
}

function configure(program: Program, reporter: Reporter): void {
  program
    .exitOverride()
    .showSuggestionAfterError(true)
    .configureOutput({
      writeOut: (text) => reporter.raw(text),
      writeErr: (text) => reporter.raw(text, 'stderr'),
      // Usage errors are reported by runCli, in text or JSON.
      outputError: () => undefined,
    });
}

function usageMessage(message: string): string {
  // One line: commander puts its suggestion on a line of its own, which would end up inside a JSON string.
  const text = message
    .replace(/^error:\s*/i, '')
    .trim()
    .replace(/\s*\n\s*/g, ' ');
  return text.charAt(0).toUpperCase() + text.slice(1);
}
