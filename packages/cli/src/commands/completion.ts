import { ClientError } from '../errors/client-errors.js';
import type { Command } from './types.js';

interface CompletionOptions {
  packages?: boolean;
}

// Commands whose arguments are package names, completed from the project's manifest.
const PACKAGE_COMMANDS = new Set(['add', 'install', 'uninstall', 'update', 'info']);

/**
 * `pkg completion`. Made from the command list it describes (commands/index.ts passes it), so the
 * two modules do not import each other.
 */
export const completionCommand = (commands: () => readonly Command[]): Command<CompletionOptions> => ({
  name: 'completion',
  summary: 'Print a shell completion script (bash, zsh, fish, powershell)',
  description:
    "Print a completion script for the shell: command names, their flags, and the package names of the project's manifest where a command takes packages. See docs/cli.md for installing it.",
  arguments: [{ name: 'shell', description: 'bash, zsh, fish or powershell' }],
  options: [
    { flags: '--packages', description: "print the package names of the project's manifest, one per line (the scripts call it)" },
  ],
  examples: [
    'eval "$(pkg completion bash)"',
    'source <(pkg completion zsh)',
    'pkg completion fish > ~/.config/fish/completions/pkg.fish',
  ],
  async run(ctx, { args, options }) {
    if (options.packages) {
      // Completion must never print an error into the user's command line: no project, no names.
      try {
        const { openProject } = await import('../project/open-project.js');
        const open = await openProject(ctx);
        const names = Object.keys(open.manifest.manifest.dependencies).sort();
        return { json: { packages: names }, text: names };
      } catch {
        return { json: { packages: [] }, text: [] };
      }
    }
    const { completionScript, SHELLS } = await import('../output/completion-scripts.js');
    const shell = String(args.shell ?? '');
    if (!(SHELLS as readonly string[]).includes(shell)) {
      throw shell
        ? new ClientError('UNKNOWN_SHELL', { shell, shells: SHELLS.join(', ') })
        : new ClientError('MISSING_SHELL', { shells: SHELLS.join(', ') });
    }
    const described = commands().map((command) => ({
      name: command.name,
      summary: command.summary,
      flags: [
        ...(command.options ?? []).flatMap((option) => option.flags.match(/--[a-z][a-z-]*/g) ?? []),
        '--json',
        '--verbose',
        '--help',
      ],
      takesPackages: PACKAGE_COMMANDS.has(command.name),
      ...(command.name === 'completion' ? { values: SHELLS } : {}),
    }));
    const script = completionScript(shell as (typeof SHELLS)[number], described);
    return { json: { shell, script }, text: [script.replace(/\n$/, '')] };
  },
});
