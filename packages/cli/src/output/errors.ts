/**
 * The client's one error catalogue: every failure a command reports, its message, an optional
 * hint and its exit code (0 success, 1 the operation failed, 2 wrong usage). Commands and
 * library code throw `ClientError`s; the reporter prints `Error: <message>` and `Hint: <hint>`
 * (or `{"success": false, ...}` with --json), and runCli returns the exit code.
 * docs/cli.md lists these messages.
 */
export const EXIT = { OK: 0, FAILED: 1, USAGE: 2 } as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

interface CatalogueEntry {
  exit: ExitCode;
  message: string;
  hint?: string;
}

export const CLIENT_ERRORS = {
  USAGE: { exit: EXIT.USAGE, message: 'Invalid usage' },
  INVALID_REGISTRY_URL: {
    exit: EXIT.USAGE,
    message: 'Invalid registry URL',
    hint: 'Give a full URL such as https://registry.example.com.',
  },
  INSECURE_REGISTRY: {
    exit: EXIT.USAGE,
    message: 'Refusing to use plain http:// for a registry that is not on this machine',
    hint: 'Use https://. Plain http:// is accepted only for localhost, *.localhost, 127.0.0.0/8 and ::1.',
  },
  INVALID_CREDENTIALS: {
    exit: EXIT.FAILED,
    message: 'Authentication failed: Invalid credentials',
    hint: 'Check your username and password, or contact the registry administrator.',
  },
  CONNECT_FAILED: {
    exit: EXIT.FAILED,
    message: 'Failed to connect to registry',
    hint: 'Check that the registry URL is right and that the registry is running.',
  },
  REGISTRY_UNREACHABLE: {
    exit: EXIT.FAILED,
    message: 'Registry not found or unreachable',
    hint: 'Check the registry URL (host name and port) and your network.',
  },
  TOKEN_STORE_FAILED: {
    exit: EXIT.FAILED,
    message: 'Failed to store authentication token',
    hint: 'Check that the client data directory is writable, or set tokenStore with `pkg config set tokenStore file`.',
  },
  TOKEN_READ_FAILED: {
    exit: EXIT.FAILED,
    message: 'Failed to read the stored authentication token',
    hint: 'Run `pkg login` again to replace it.',
  },
  NOT_LOGGED_IN: {
    exit: EXIT.FAILED,
    message: 'Not logged in',
    hint: 'Run `pkg login` (with --registry <url> for another registry).',
  },
  TOKEN_REJECTED: {
    exit: EXIT.FAILED,
    message: 'Authentication failed: the registry rejected the stored token',
    hint: 'The token was revoked or has expired. Run `pkg login` again.',
  },
  FORBIDDEN: { exit: EXIT.FAILED, message: 'Forbidden' },
  PACKAGE_NOT_FOUND: { exit: EXIT.FAILED, message: 'Package not found' },
  VERSION_NOT_FOUND: { exit: EXIT.FAILED, message: 'Version not found' },
  INVALID_PACKAGE_NAME: { exit: EXIT.USAGE, message: 'Invalid package name' },
  SEARCH_TERM_EMPTY: {
    exit: EXIT.USAGE,
    message: 'Search term cannot be empty',
    hint: 'Give a package name, description word or keyword: pkg search <term>.',
  },
  NO_PACKAGES_FOUND: { exit: EXIT.FAILED, message: 'No packages found' },
  RATE_LIMITED: {
    exit: EXIT.FAILED,
    message: 'Rate limit exceeded',
    hint: 'Wait a while before trying again; logged-in users have a higher limit.',
  },
  REGISTRY_ERROR: { exit: EXIT.FAILED, message: 'The registry answered with an error' },
  INVALID_RESPONSE: { exit: EXIT.FAILED, message: 'The registry sent a response the client cannot read' },
  CONFIG_UNKNOWN_KEY: { exit: EXIT.USAGE, message: 'Unknown configuration key' },
  CONFIG_INVALID_VALUE: { exit: EXIT.USAGE, message: 'Invalid configuration value' },
  CONFIG_UNREADABLE: { exit: EXIT.FAILED, message: 'Cannot read the configuration file' },
  CONFIG_WRITE_FAILED: { exit: EXIT.FAILED, message: 'Cannot write the configuration file' },
  UPMCONFIG_FAILED: { exit: EXIT.FAILED, message: 'Failed to update the Unity user configuration file' },
  INPUT_ENDED: {
    exit: EXIT.USAGE,
    message: 'Input ended before every answer was given',
    hint: 'Pipe the username, password and e-mail on separate lines, or run in a terminal.',
  },
  CANCELLED: { exit: EXIT.FAILED, message: 'Cancelled' },
  // Project commands (add, install, uninstall, list, update): shared/SPEC.md "Client command: update".
  NO_ENGINE_DETECTED: {
    exit: EXIT.FAILED,
    message: 'no supported engine detected. Please specify --engine <engine>',
    hint: 'Run pkg inside a project (Unity: a folder with Assets/, ProjectSettings/ and Packages/manifest.json; Godot 4: project.godot; Unreal Engine 5: one .uproject), or name the engine with --engine unity|godot|unreal.',
  },
  UNKNOWN_ENGINE: { exit: EXIT.USAGE, message: 'Unknown engine' },
  ENGINE_UNSUPPORTED: { exit: EXIT.FAILED, message: 'The project is made with an engine version pkg does not support' },
  MANIFEST_NOT_FOUND: { exit: EXIT.FAILED, message: 'Project manifest not found' },
  MANIFEST_INVALID: { exit: EXIT.FAILED, message: 'Project manifest is invalid' },
  PACKAGE_NOT_IN_PROJECT: { exit: EXIT.FAILED, message: 'package not found in project' },
  VERSION_CONFLICT: {
    exit: EXIT.FAILED,
    message: 'version conflict: cannot update package',
    hint: 'Update the dependent package first.',
  },
  FETCH_FAILED: { exit: EXIT.FAILED, message: 'failed to fetch package information' },
  NO_COMPATIBLE_VERSION: { exit: EXIT.FAILED, message: 'No version is compatible with the project' },
  INTEGRITY_MISMATCH: {
    exit: EXIT.FAILED,
    message: 'Integrity check failed',
    hint: 'The downloaded tarball does not match the registry’s integrity value; nothing was installed. Try again, or tell the registry administrator.',
  },
  UNSAFE_TARBALL: { exit: EXIT.FAILED, message: 'Refusing to extract a tarball with unsafe entries' },
  APPLY_FAILED: { exit: EXIT.FAILED, message: 'The change could not be applied' },
  GLOBAL_NOT_INSTALLED: { exit: EXIT.FAILED, message: 'package not installed globally' },
  // Engines whose packages pkg installs itself (Godot, Unreal): docs/engines.md.
  ENGINE_VERSION_REQUIRED: {
    exit: EXIT.FAILED,
    message: 'The project does not say its engine version',
    hint: 'Give it with --engine-version <major>.<minor>, or set it with `pkg config set engineVersion <major>.<minor>`.',
  },
  INVALID_ENGINE_VERSION: { exit: EXIT.USAGE, message: 'Invalid engine version' },
  UNREAL_PROJECT_AMBIGUOUS: {
    exit: EXIT.FAILED,
    message: 'The folder holds more than one .uproject file',
    hint: 'Run pkg in a folder with exactly one .uproject file.',
  },
  PACKAGE_LAYOUT_INVALID: { exit: EXIT.FAILED, message: 'The package is not laid out for the project’s engine' },
  TARGET_EXISTS: {
    exit: EXIT.FAILED,
    message: 'A package’s folder exists but pkg-lock.json does not list it',
    hint: 'Move the folder away (it may be a copy installed by hand), then run pkg again; nothing was changed.',
  },
  LOCAL_CHANGES: {
    exit: EXIT.FAILED,
    message: 'Files of an installed package were changed by hand',
    hint: 'Keep a copy of your changes, or run again with --force: the package folders are backed up first.',
  },
  PROJECT_BUSY: {
    exit: EXIT.FAILED,
    message: 'Another pkg process is changing the project',
    hint: 'Wait for it to finish, then run the command again. (The lock of a pkg that was killed is taken over at once on the same machine, after 30 seconds from another one.)',
  },
  LOCK_INVALID: {
    exit: EXIT.FAILED,
    message: 'pkg-lock.json is invalid',
    hint: 'Restore it from version control, or delete it and run `pkg install` to resolve the packages again.',
  },
  DUPLICATE_SCOPE: {
    exit: EXIT.FAILED,
    message: 'A scope is listed by two scoped registries',
    hint: 'Unity leaves such a project undefined: keep the scope in one entry of scopedRegistries only.',
  },
  AUTH_REQUIRED: {
    exit: EXIT.FAILED,
    message: 'Authentication required by the registry',
    hint: 'Run `pkg login --registry <url>`, or give Unity a token for it in ~/.upmconfig.toml.',
  },
  // `pkg publish`.
  PACKAGE_INVALID: {
    exit: EXIT.FAILED,
    message: 'The package cannot be published',
    hint: 'Fix package.json or the package folder, then run pkg publish again (--dry-run checks without publishing).',
  },
  PUBLISH_REFUSED: { exit: EXIT.FAILED, message: 'The registry refused the package' },
} as const satisfies Record<string, CatalogueEntry>;

export type ClientErrorCode = keyof typeof CLIENT_ERRORS;

/** A failure the client knows how to report. `message` overrides the catalogue's text when given. */
export class ClientError extends Error {
  readonly code: ClientErrorCode;
  readonly exitCode: ExitCode;
  readonly hint: string | undefined;

  constructor(code: ClientErrorCode, options: { message?: string; hint?: string | null; cause?: unknown } = {}) {
    const entry: CatalogueEntry = CLIENT_ERRORS[code];
    super(options.message ?? entry.message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ClientError';
    this.code = code;
    this.exitCode = entry.exit;
    this.hint = options.hint === null ? undefined : (options.hint ?? entry.hint);
  }
}

/** What the reporter prints for a failure. */
export interface ErrorReport {
  code: ClientErrorCode | 'INTERNAL';
  message: string;
  hint?: string;
  exitCode: ExitCode;
}

/** Turns anything thrown into a report; unknown errors are our bug and say so, without a stack. */
export function toErrorReport(err: unknown): ErrorReport {
  if (err instanceof ClientError) {
    return { code: err.code, message: err.message, exitCode: err.exitCode, ...(err.hint ? { hint: err.hint } : {}) };
  }
  const message = err instanceof Error ? err.message : String(err);
  return {
    code: 'INTERNAL',
    message: `Unexpected error: ${message}`,
    hint: 'This is a bug in pkg; run again with --verbose and report it.',
    exitCode: EXIT.FAILED,
  };
}
