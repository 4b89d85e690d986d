import type { DocumentFreshness } from '../http/document-cache.js';
import type { CommandContext } from '../context.js';
import type { CommandResult } from '../output/reporter.js';

export interface ArgumentSpec {
  /** Shown in usage as `<name>` (required) or `[name]`; `name...` when variadic. */
  name: string;
  description: string;
  required?: boolean;
  variadic?: boolean;
}

export interface OptionSpec {
  /** Commander flag syntax: `--limit <number>`, `--detail`, `--save [bool]`, `-g, --global`. */
  flags: string;
  description: string;
  default?: string | boolean | number;
  /** Converts and checks the raw value; throw a ClientError('USAGE', ...) to reject it. */
  parse?(value: string): unknown;
}

/** What `run` receives: positional arguments by name and options by camel-cased name. */
export interface CommandArgs<O = Record<string, unknown>> {
  args: Record<string, string | string[] | undefined>;
  options: O & GlobalOptions;
}

/** Options every command accepts. */
export interface GlobalOptions {
  json?: boolean;
  verbose?: boolean;
}

/**
 * One command: its metadata (for help and the structural test) and `run`, which returns a
 * result for the reporter and never prints or exits. Modules holding commands import only
 * light modules at the top; heavy ones (undici, the keychain binding, tar) load inside
 * `run`, through the context, so `pkg --help` stays fast.
 */
export interface Command<O = unknown> {
  name: string;
  summary: string;
  /** Longer help text, shown by `pkg <command> --help`. */
  description?: string;
  arguments?: ArgumentSpec[];
  options?: OptionSpec[];
  /** Text printed after the options in the command's help, as written (not re-wrapped). */
  helpText?: string;
  /** Lines shown under "Examples:" in the command's help. */
  examples?: string[];
  /**
   * How the command reads package documents from the document cache: `max-age` uses a fresh
   * one without asking (what installs do, as npm's do); `revalidate` (the default) asks the
   * registry every time, with the cached copy's validators, for commands whose point is to
   * see what the registry holds now (info, outdated, update, add).
   */
  documentFreshness?(input: CommandArgs<O>): DocumentFreshness;
  run(ctx: CommandContext, input: CommandArgs<O>): Promise<CommandResult>;
}

/** The `--registry <url>` option, shared by every command that talks to a registry. */
export const REGISTRY_OPTION: OptionSpec = {
  flags: '--registry <url>',
  description: 'registry URL (default: the `registry` setting, or PKG_REGISTRY)',
};

/**
 * `--otp <code>` on the commands that change something: the one-time password an account with
 * two-factor sign-in needs (npm's `--otp`). Without it, `pkg` asks on a terminal when the
 * registry wants one.
 */
export const OTP_OPTION: OptionSpec = {
  flags: '--otp <code>',
  description: 'one-time password from your authenticator app (two-factor sign-in); asked for on a terminal when needed',
};

/** `--registry` on the project commands, where every package has its own registry. */
export const PROJECT_REGISTRY_OPTION: OptionSpec = {
  flags: '--registry <url>',
  description:
    'only the packages that come from this registry; naming one from another is refused (default: every package, each from the registry the manifest names for it)',
};
