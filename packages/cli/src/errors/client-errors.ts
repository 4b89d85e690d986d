/**
 * The client's one error catalogue: every failure a command reports, with its message, an
 * optional hint and its exit code (0 success, 1 the operation failed, 2 wrong usage). Messages
 * and hints are templates: `{name}` is filled from the parameters given where the error is
 * thrown (`new ClientError('PACKAGE_NOT_FOUND', { name })`), and TypeScript checks that every
 * placeholder gets one. An entry's key says which failure it is; `code` (the key unless set)
 * is what `--json` reports and scripts compare, so several entries may share one code.
 * Adding a failure is adding an entry here and its row in docs/cli.md (a test compares them).
 */
export const EXIT = { OK: 0, FAILED: 1, USAGE: 2 } as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

interface CatalogueEntry {
  code?: string;
  exit: ExitCode;
  message: string;
  hint?: string;
}

export const CLIENT_ERRORS = {
  // Wrong usage (exit 2).
  USAGE: { exit: EXIT.USAGE, message: '{problem}', hint: 'Run `pkg {command}--help` for usage.' },
  INVALID_NUMBER_FLAG: {
    code: 'USAGE',
    exit: EXIT.USAGE,
    message: "Invalid {flag} '{value}': expected an integer from 1 to {max}",
  },
  INVALID_SAVE_VALUE: { code: 'USAGE', exit: EXIT.USAGE, message: "Invalid --save value '{value}': use --save or --save=false" },
  MISSING_VERSION: { code: 'USAGE', exit: EXIT.USAGE, message: "Missing version after '@' in '{spec}'" },
  EMPTY_USERNAME: { code: 'USAGE', exit: EXIT.USAGE, message: 'Username cannot be empty' },
  EMPTY_PASSWORD: { code: 'USAGE', exit: EXIT.USAGE, message: 'Password cannot be empty' },
  GLOBAL_NAMES_MISSING: {
    code: 'USAGE',
    exit: EXIT.USAGE,
    message: 'Name the packages to install globally',
    hint: 'pkg install --global <name>...',
  },
  CONFIG_USAGE: { code: 'USAGE', exit: EXIT.USAGE, message: '{problem}', hint: 'Run `pkg config --help` for usage.' },
  TOKEN_UNKNOWN_ACTION: {
    code: 'USAGE',
    exit: EXIT.USAGE,
    message: "Unknown token action '{action}'",
    hint: 'Use one of: {actions}.',
  },
  TOKEN_USAGE: { code: 'USAGE', exit: EXIT.USAGE, message: '{problem}', hint: 'Run `pkg token --help` for usage.' },
  CONFIG_UNKNOWN_ACTION: {
    code: 'USAGE',
    exit: EXIT.USAGE,
    message: "Unknown config action '{action}'",
    hint: 'Use one of: {actions}.',
  },
  CACHE_UNKNOWN_ACTION: {
    code: 'USAGE',
    exit: EXIT.USAGE,
    message: "Unknown cache action '{action}'",
    hint: 'Use one of: {actions}.',
  },
  UNKNOWN_SHELL: {
    code: 'USAGE',
    exit: EXIT.USAGE,
    message: "Unknown shell '{shell}'",
    hint: 'Run `pkg completion <shell>` with one of: {shells}.',
  },
  MISSING_SHELL: {
    code: 'USAGE',
    exit: EXIT.USAGE,
    message: 'Missing the shell',
    hint: 'Run `pkg completion <shell>` with one of: {shells}.',
  },
  INPUT_ENDED: {
    exit: EXIT.USAGE,
    message: 'Input ended before every answer was given',
    hint: 'Pipe the username, password and e-mail on separate lines, or run in a terminal.',
  },
  INVALID_REGISTRY_URL: {
    exit: EXIT.USAGE,
    message: "Invalid registry URL '{url}'",
    hint: 'Give a full URL such as https://registry.example.com.',
  },
  REGISTRY_URL_SCHEME: {
    code: 'INVALID_REGISTRY_URL',
    exit: EXIT.USAGE,
    message: "Invalid registry URL '{url}': use https://",
    hint: 'Give a full URL such as https://registry.example.com.',
  },
  REGISTRY_URL_CREDENTIALS: {
    code: 'INVALID_REGISTRY_URL',
    exit: EXIT.USAGE,
    message: 'Invalid registry URL: credentials do not belong in the URL',
    hint: 'Remove user:password@ from the URL and run `pkg login` instead.',
  },
  REGISTRY_URL_QUERY: {
    code: 'INVALID_REGISTRY_URL',
    exit: EXIT.USAGE,
    message: "Invalid registry URL '{url}': no query or fragment allowed",
    hint: 'Give a full URL such as https://registry.example.com.',
  },
  INSECURE_REGISTRY: {
    exit: EXIT.USAGE,
    message: 'Refusing plain http:// to {host}: only https:// is allowed for hosts that are not on this machine',
    hint: 'Use https://. Plain http:// is accepted only for localhost, *.localhost, 127.0.0.0/8 and ::1.',
  },
  INSECURE_PROJECT_REGISTRY: {
    code: 'INSECURE_REGISTRY',
    exit: EXIT.FAILED,
    message:
      'Refusing plain http:// to {host} ({url}, named in {manifest}): only https:// is allowed for hosts that are not on this machine',
    hint: 'Packages and tokens would cross the network unencrypted. Serve that registry over HTTPS, or put a TLS proxy (Caddy, nginx) in front of it and name its https:// URL in {manifest}. Packages of the other registries are not affected.',
  },
  INVALID_PACKAGE_NAME: { exit: EXIT.USAGE, message: "Invalid package name '{name}': {rule}" },
  SEARCH_TERM_EMPTY: {
    exit: EXIT.USAGE,
    message: 'Search term cannot be empty',
    hint: 'Give a package name, description word or keyword: pkg search <term>.',
  },
  CONFIG_UNKNOWN_KEY: { exit: EXIT.USAGE, message: "Unknown configuration key '{key}'", hint: 'Known keys: {keys}.' },
  CONFIG_INVALID_VALUE: { exit: EXIT.USAGE, message: "Invalid value for {key}: '{value}' (expected {expected})" },
  CONFIG_FILE_INVALID_VALUE: {
    code: 'CONFIG_INVALID_VALUE',
    exit: EXIT.USAGE,
    message: '{file}: {problem}',
    hint: 'Fix it with `pkg config set {key} <value>` or `pkg config delete {key}`.',
  },
  UNKNOWN_ENGINE: { exit: EXIT.USAGE, message: "Unknown engine '{engine}'", hint: 'Supported engines: {engines}' },
  ENGINE_UNSUPPORTED: {
    exit: EXIT.FAILED,
    message: '{file} is a {found} project (config_version={version}): pkg supports Godot 4 projects only',
    hint: 'Open the project in Godot 4, which converts it (Project Manager: Convert Full Project), then run pkg again.',
  },

  // Login and tokens.
  INVALID_CREDENTIALS: {
    exit: EXIT.FAILED,
    message: 'Authentication failed: Invalid credentials',
    hint: 'Check your username and password, or contact the registry administrator.',
  },
  NO_SIGNUP_REFUSED: {
    code: 'INVALID_CREDENTIALS',
    exit: EXIT.FAILED,
    message: 'Authentication failed: Invalid credentials',
    hint: "Check your username and password. With --no-signup no account is created: leave it out to sign up as '{user}'.",
  },
  TOKEN_NOT_FOUND: {
    exit: EXIT.FAILED,
    message: "You have no token with the key '{key}' on {registry}",
    hint: 'Run `pkg token list --registry {registry}` to see the keys of your tokens.',
  },
  NOT_LOGGED_IN: { exit: EXIT.FAILED, message: 'Not logged in to {registry}', hint: 'Run `pkg login --registry {registry}`.' },
  TOKEN_REJECTED: {
    exit: EXIT.FAILED,
    message: 'Authentication failed: the registry rejected {source}',
    hint: '{registry} rejected {source}: {why}. Run `pkg login --registry {registry}` again.',
  },
  OTP_REQUIRED: {
    exit: EXIT.FAILED,
    message: '{registry} asks for a one-time password: {details}',
    hint: 'Run the command again with --otp <code> from your authenticator app (or a recovery code); on a terminal pkg asks for it.',
  },
  OTP_REJECTED: {
    exit: EXIT.FAILED,
    message: '{registry} did not accept the one-time password: {details}',
    hint: 'Codes change every 30 seconds and each is good once: run the command again with --otp and the next code.',
  },
  TOKEN_STORE_FAILED: {
    exit: EXIT.FAILED,
    message: 'Failed to store authentication token',
    hint: '{reason}. Check that {dir} is writable, or choose the store with `pkg config set tokenStore file`.',
  },
  NO_KEYCHAIN: {
    code: 'TOKEN_STORE_FAILED',
    exit: EXIT.FAILED,
    message: 'Failed to store authentication token: no OS keychain answers',
    hint: 'Unlock or start your keychain (on Linux, a Secret Service such as GNOME Keyring), or run `pkg config set tokenStore auto`.',
  },
  TOKEN_REMOVE_FAILED: { code: 'TOKEN_STORE_FAILED', exit: EXIT.FAILED, message: 'Failed to remove the stored token: {reason}' },
  TOKEN_READ_FAILED: {
    exit: EXIT.FAILED,
    message: 'Failed to read the stored authentication token: {reason}',
    hint: 'Run `pkg login` again to replace it.',
  },
  REVOKE_FAILED: {
    exit: EXIT.FAILED,
    message: '{reason}: the token was forgotten on this machine but not revoked on the registry',
    hint: 'Revoke it in the web interface of {registry} (Access tokens).',
  },
  UPMCONFIG_FAILED: {
    exit: EXIT.FAILED,
    message: 'Logged in, but failed to update {file}: {reason}',
    hint: 'Fix or remove the file, then run `pkg login --upmconfig` again.',
  },
  CANCELLED: { exit: EXIT.FAILED, message: 'Cancelled' },

  // Talking to the registry.
  CONNECT_FAILED: {
    exit: EXIT.FAILED,
    message: 'Failed to connect to registry',
    hint: 'Could not connect to {host} ({reason}). Check that the registry URL is right and that the registry is running.',
  },
  TLS_FAILED: {
    code: 'CONNECT_FAILED',
    exit: EXIT.FAILED,
    message: 'Failed to connect to registry',
    hint: 'The TLS certificate of {host} could not be verified ({reason}). If the registry uses a private certificate authority, point NODE_EXTRA_CA_CERTS at its PEM file.',
  },
  PROXY_REFUSED: {
    code: 'CONNECT_FAILED',
    exit: EXIT.FAILED,
    message: 'Failed to connect to registry',
    hint: 'The proxy refused to connect to {host} ({reason}). Check HTTP_PROXY, HTTPS_PROXY and NO_PROXY.',
  },
  REGISTRY_UNREACHABLE: {
    exit: EXIT.FAILED,
    message: 'Registry not found or unreachable',
    hint: 'Could not reach {host} ({reason}). Check the registry URL and your network.',
  },
  ENDPOINT_NOT_FOUND: {
    code: 'REGISTRY_UNREACHABLE',
    exit: EXIT.FAILED,
    message: 'Registry not found or unreachable',
    hint: '{registry} answered 404 for the {endpoint} endpoint: is this the URL of a pkg registry?',
  },
  FORBIDDEN: { exit: EXIT.FAILED, message: 'Forbidden: {details}' },
  PACKAGE_NOT_FOUND: {
    exit: EXIT.FAILED,
    message: "Package '{name}' not found",
    hint: 'Check the name, or search with `pkg search <term>`.',
  },
  PACKAGE_NOT_IN_REGISTRY: {
    code: 'PACKAGE_NOT_FOUND',
    exit: EXIT.FAILED,
    message: "Package '{name}' not found in the registry",
    hint: 'Check the name (pkg search <term> finds packages) and the registry in use (--registry).',
  },
  VERSION_NOT_FOUND: {
    exit: EXIT.FAILED,
    message: "Version '{version}' of {name} not found",
    hint: 'Run `pkg info {name}` to see its versions and dist-tags.',
  },
  NO_LATEST_VERSION: {
    code: 'VERSION_NOT_FOUND',
    exit: EXIT.FAILED,
    message: '{name} has no latest version',
    hint: 'Run `pkg info {name}` to see its versions and dist-tags.',
  },
  VERSION_NOT_PUBLISHED: {
    code: 'VERSION_NOT_FOUND',
    exit: EXIT.FAILED,
    message: "Version '{version}' of {name} not found",
    hint: '{available}',
  },
  VERSION_OR_TAG_NOT_FOUND: {
    code: 'VERSION_NOT_FOUND',
    exit: EXIT.FAILED,
    message: "Version or tag '{spec}' of {name} not found",
    hint: '{available}',
  },
  MANIFEST_VERSION_NOT_FOUND: {
    code: 'VERSION_NOT_FOUND',
    exit: EXIT.FAILED,
    message: "Version '{version}' of {name} not found",
    hint: '{manifest} asks for a version the registry does not have: pick another with `pkg add {name}@<version>`.',
  },
  NO_PACKAGES_FOUND: {
    exit: EXIT.FAILED,
    message: "No packages found matching '{term}'",
    hint: 'Try a shorter or different term: names, descriptions, keywords and authors are searched.',
  },
  RATE_LIMITED: { exit: EXIT.FAILED, message: 'Rate limit exceeded: {details}', hint: 'Try again in {seconds} seconds.' },
  RATE_LIMITED_NO_WAIT: { code: 'RATE_LIMITED', exit: EXIT.FAILED, message: 'Rate limit exceeded: {details}' },
  REGISTRY_ERROR: { exit: EXIT.FAILED, message: 'The registry answered HTTP {status}: {details}' },
  REGISTRY_STATUS: { code: 'REGISTRY_ERROR', exit: EXIT.FAILED, message: 'The registry answered HTTP {status}' },
  INVALID_RESPONSE: {
    exit: EXIT.FAILED,
    message: 'The registry sent a response the client cannot read',
    hint: 'The answer to {request} is not JSON. Is {registry} a pkg registry?',
  },
  UNREADABLE_ANSWER: { code: 'INVALID_RESPONSE', exit: EXIT.FAILED, message: 'The registry sent {what}' },
  DOWNLOAD_INTERRUPTED: {
    exit: EXIT.FAILED,
    message: 'Download of {package} from {registry} stopped at {received} of {total}: {reason}',
    hint: '{kept} If it keeps happening, check the network between you and the registry (a proxy, a VPN, a timeout: pkg config set timeout <seconds>).',
  },
  FETCH_FAILED: { exit: EXIT.FAILED, message: 'failed to fetch package information', hint: '{name}: {reason}' },

  // The config file.
  CONFIG_UNREADABLE: { exit: EXIT.FAILED, message: 'Cannot read {file}: {reason}' },
  CONFIG_NOT_JSON: {
    code: 'CONFIG_UNREADABLE',
    exit: EXIT.FAILED,
    message: 'Cannot read {file}: it is not valid JSON: {problem}',
    hint: 'Fix or delete the file; `pkg config set` writes it again.',
  },
  CONFIG_NOT_OBJECT: { code: 'CONFIG_UNREADABLE', exit: EXIT.FAILED, message: 'Cannot read {file}: it must hold a JSON object' },
  CONFIG_WRITE_FAILED: { exit: EXIT.FAILED, message: 'Cannot write {file}: {reason}' },

  // Projects (add, install, uninstall, list, update): shared/SPEC.md "Client command: update".
  NO_ENGINE_DETECTED: {
    exit: EXIT.FAILED,
    message: 'no supported engine detected. Please specify --engine <engine>',
    hint: 'Run pkg inside a project (Unity: a folder with Assets/, ProjectSettings/ and Packages/manifest.json; Godot 4: project.godot; Unreal Engine 5: one .uproject). Supported engines: {engines}',
  },
  MANIFEST_NOT_FOUND: {
    exit: EXIT.FAILED,
    message: '{manifest} not found in {project}',
    hint: 'Run pkg in the root folder of a Unity project, or open the project in Unity once to create it.',
  },
  MANIFEST_INVALID: {
    exit: EXIT.FAILED,
    message: '{manifest} is invalid: {problem}',
    hint: 'Fix the file (Unity reports the same problem in its console), then run pkg again.',
  },
  MANIFEST_READ_BACK: { code: 'MANIFEST_INVALID', exit: EXIT.FAILED, message: '{manifest} did not read back as written' },
  GLOBAL_MANIFEST_INVALID: {
    code: 'MANIFEST_INVALID',
    exit: EXIT.FAILED,
    message: '{manifest} is invalid: {problem}',
    hint: 'Fix or delete the file; global packages are listed there.',
  },
  PACKAGE_NOT_IN_PROJECT: { exit: EXIT.FAILED, message: "package '{name}' not found in project" },
  ONLY_A_DEPENDENCY: {
    code: 'PACKAGE_NOT_IN_PROJECT',
    exit: EXIT.FAILED,
    message: "package '{name}' is installed only because other packages need it",
    hint: 'It goes when the last package needing it is uninstalled (pkg list shows it as a dependency).',
  },
  UPDATE_NOT_IN_PROJECT: {
    code: 'PACKAGE_NOT_IN_PROJECT',
    exit: EXIT.FAILED,
    message: "package '{name}' not found in project",
    hint: 'Add it with `pkg add {name}`, or check the name in {manifest}.',
  },
  VERSION_CONFLICT: { exit: EXIT.FAILED, message: 'version conflict: {conflict}', hint: '{advice}' },
  NO_COMPATIBLE_VERSION: {
    exit: EXIT.FAILED,
    message: 'No version of {name} is compatible with {engine}',
    hint: '{versions}',
  },
  VERSION_NEEDS_NEWER_ENGINE: {
    code: 'NO_COMPATIBLE_VERSION',
    exit: EXIT.FAILED,
    message: '{name}@{version} requires {requires}; this project uses {engine}',
    hint: '{versions}',
  },
  NO_MATCHING_COMPATIBLE_VERSION: {
    code: 'NO_COMPATIBLE_VERSION',
    exit: EXIT.FAILED,
    message: "No version of {name} matching '{spec}' works with {engine}",
    hint: '{available}',
  },
  INTEGRITY_UNKNOWN: {
    code: 'INTEGRITY_MISMATCH',
    exit: EXIT.FAILED,
    message: 'Integrity check failed for {package}: the registry gives no integrity value',
  },
  INTEGRITY_MISMATCH: {
    exit: EXIT.FAILED,
    message: 'Integrity check failed for {package}: expected {expected}',
    hint: 'The downloaded tarball does not match the registry’s integrity value; nothing was installed. Try again, or tell the registry administrator.',
  },
  UNREADABLE_TARBALL: { code: 'UNSAFE_TARBALL', exit: EXIT.FAILED, message: 'The tarball of {label} cannot be read: {reason}' },
  UNSAFE_TARBALL: {
    exit: EXIT.FAILED,
    message: "Refusing to extract {label}: entry '{entry}' has {reason}",
    hint: 'The package is malformed or malicious; nothing was installed.',
  },
  APPLY_FAILED: {
    exit: EXIT.FAILED,
    message: 'Failed to write {manifest}: {reason}. The backup was restored automatically',
    hint: 'Nothing was changed. The backup stays in {backup}.',
  },
  RESTORE_FAILED: {
    code: 'APPLY_FAILED',
    exit: EXIT.FAILED,
    message: 'Failed to write {manifest}: {reason}; restoring the backup failed too ({restoreReason})',
    hint: 'Copy {backup} back to {target} by hand.',
  },
  // Engines whose packages pkg installs itself (Godot, Unreal): docs/engines.md.
  ENGINE_VERSION_REQUIRED: {
    exit: EXIT.FAILED,
    message: '{file} has {association}, which is not an engine version',
    hint: 'A project of a source-built engine does not say its version: give it with --engine-version 5.3, or once with `pkg config set engineVersion 5.3`.',
  },
  INVALID_ENGINE_VERSION: {
    exit: EXIT.USAGE,
    message: "Invalid engine version '{version}' for {engine} ({source})",
    hint: '{form}',
  },
  CONFIG_ENGINE_VERSION: {
    code: 'CONFIG_INVALID_VALUE',
    exit: EXIT.USAGE,
    message: "Invalid value for engineVersion: '{value}' (expected an engine version such as 5.3 or 4.2.1)",
  },
  GODOT_PROJECT_NOT_FOUND: {
    code: 'MANIFEST_NOT_FOUND',
    exit: EXIT.FAILED,
    message: '{file} not found in {project}',
    hint: 'Run pkg in the folder of a Godot 4 project (or below it).',
  },
  UNREAL_PROJECT_NOT_FOUND: {
    code: 'MANIFEST_NOT_FOUND',
    exit: EXIT.FAILED,
    message: 'No .uproject file in {project}',
    hint: 'Run pkg in the folder of an Unreal Engine 5 project (or below it).',
  },
  PROJECT_FILE_GONE: { code: 'MANIFEST_NOT_FOUND', exit: EXIT.FAILED, message: '{file} not found in {project}' },
  UNREAL_PROJECT_AMBIGUOUS: {
    exit: EXIT.FAILED,
    message: '{project} holds {count} .uproject files ({files}); pkg needs exactly one',
    hint: 'Run pkg in a folder with exactly one .uproject file.',
  },
  UPROJECT_INVALID: {
    code: 'MANIFEST_INVALID',
    exit: EXIT.FAILED,
    message: '{file} is invalid: {problem}',
    hint: 'Fix the file (the Unreal Editor reports the same problem when it opens the project), then run pkg again.',
  },
  PKG_JSON_INVALID: {
    code: 'MANIFEST_INVALID',
    exit: EXIT.FAILED,
    message: '{file} is invalid: {problem}',
    hint: 'Fix {path} (it lists the project’s packages under "dependencies", each name with its version), then run pkg again.',
  },
  NOT_A_GODOT_PACKAGE: {
    code: 'PACKAGE_LAYOUT_INVALID',
    exit: EXIT.FAILED,
    message: '{label} is not a Godot package: {problem}',
    hint: 'A Godot package holds package.json and one folder addons/<folder>/; tell its publisher.',
  },
  UPLUGIN_COUNT: {
    code: 'PACKAGE_LAYOUT_INVALID',
    exit: EXIT.FAILED,
    message: '{label} is not an Unreal package: it has {count} .uplugin files at its root, not one',
    hint: 'An Unreal package holds package.json, <Name>.uplugin and the plugin’s folders; tell its publisher.',
  },
  UPLUGIN_NAME: {
    code: 'PACKAGE_LAYOUT_INVALID',
    exit: EXIT.FAILED,
    message: "{label} is not an Unreal package: '{name}' is not a valid plugin name",
    hint: 'Unreal plugin names are letters, digits and underscores; tell its publisher.',
  },
  PKG_JSON_NOT_A_VERSION: {
    code: 'VERSION_NOT_FOUND',
    exit: EXIT.FAILED,
    message: "{name}: '{version}' is not a version",
    hint: 'pkg.json lists exact versions: pick one with `pkg add <name>@<version>`.',
  },
  DEPENDENCY_NOT_IN_REGISTRY: {
    code: 'PACKAGE_NOT_FOUND',
    exit: EXIT.FAILED,
    message: "Package '{name}' not found in the registry",
    hint: '{dependent} depends on it; a Godot or Unreal project gets every package from the registry.',
  },
  INSTALL_NEEDS_NEWER_ENGINE: {
    code: 'NO_COMPATIBLE_VERSION',
    exit: EXIT.FAILED,
    message: '{name}@{version} requires {requires}; this project uses {engine}',
    hint: 'Pick a version that works with `pkg add {name}`.',
  },
  WHY_NOT_IN_PROJECT: {
    code: 'PACKAGE_NOT_IN_PROJECT',
    exit: EXIT.FAILED,
    message: "package '{name}' is not in this project",
    hint: 'Neither {manifest} nor any package it lists needs it; `pkg list --all` lists every package of the project.',
  },
  INSTALL_CONFLICT: { code: 'VERSION_CONFLICT', exit: EXIT.FAILED, message: '{conflict}', hint: '{advice}' },
  LOCAL_CHANGES: {
    exit: EXIT.FAILED,
    message: 'Files of installed packages were changed by hand: {files}',
    hint: 'Keep a copy of your changes, or run again with --force: the package folders are backed up first.',
  },
  INSTALLED_FILES_DIFFER: {
    code: 'INTEGRITY_MISMATCH',
    exit: EXIT.FAILED,
    message: 'Integrity check failed for {label}: its files differ from those {lock} lists',
    hint: 'The tarball is the one {lock} names, but its contents are not; nothing was installed. Restore {lock} from version control.',
  },
  TARGETS_CLASH: {
    code: 'TARGET_EXISTS',
    exit: EXIT.FAILED,
    message: '{name} and {other} both install into {target}',
    hint: 'A project can hold only one of them.',
  },
  TARGET_OWNED: {
    code: 'TARGET_EXISTS',
    exit: EXIT.FAILED,
    message: '{target} belongs to {owner}, which {name} would overwrite',
    hint: 'Move the folder away (it may be a copy installed by hand), then run pkg again; nothing was changed.',
  },
  TARGET_EXISTS: {
    exit: EXIT.FAILED,
    message: '{target} exists but {lock} does not list it',
    hint: 'Move the folder away (it may be a copy installed by hand), then run pkg again; nothing was changed.',
  },
  INSTALL_FAILED: {
    code: 'APPLY_FAILED',
    exit: EXIT.FAILED,
    message: 'Failed to install into {project}: {reason}. Everything was put back as it was',
    hint: '{backup}',
  },
  INSTALL_UNDO_FAILED: {
    code: 'APPLY_FAILED',
    exit: EXIT.FAILED,
    message: 'Failed to install into {project}: {reason}; putting things back failed too ({failures})',
    hint: '{backup}',
  },
  PROJECT_BUSY: {
    exit: EXIT.FAILED,
    message: 'Another pkg process is changing {project} (it holds {lock})',
    hint: 'Wait for it to finish, then run the command again. (The lock of a pkg that was killed is taken over at once on the same machine, after 30 seconds from another one.)',
  },
  LOCK_INVALID: {
    exit: EXIT.FAILED,
    message: '{lock} is invalid: {problem}',
    hint: 'Restore it from version control, or delete it and run `pkg install` to resolve the packages again.',
  },
  GLOBAL_NOT_INSTALLED: {
    exit: EXIT.FAILED,
    message: "package '{name}' is not installed globally",
    hint: 'See the global packages with `pkg list --global`.',
  },
  // Several registries in one project.
  DUPLICATE_SCOPE: {
    exit: EXIT.FAILED,
    message: "Scope '{scope}' is listed by two scoped registries: '{first}' ({firstUrl}) and '{second}' ({secondUrl})",
    hint: 'Unity leaves such a project undefined: keep the scope in one entry of scopedRegistries only.',
  },
  AUTH_REQUIRED: {
    exit: EXIT.FAILED,
    message: 'Authentication required by {registry}',
    hint: 'Run `pkg login --registry {registry}`, or give Unity a token for {registry} in ~/.upmconfig.toml ([npmAuth."{registry}"]).',
  },
  NOT_FROM_REGISTRY: {
    code: 'PACKAGE_NOT_IN_PROJECT',
    exit: EXIT.FAILED,
    message: "package '{name}' does not come from {registry}",
    hint: 'It {source}; run without --registry to act on it.',
  },
  GLOBAL_NOT_FROM_REGISTRY: {
    code: 'GLOBAL_NOT_INSTALLED',
    exit: EXIT.FAILED,
    message: "package '{name}' is not installed globally from {registry}",
    hint: 'It came from {source}; run without --registry to act on it.',
  },
  MANIFEST_VERSION_NOT_IN_REGISTRY: {
    code: 'VERSION_NOT_FOUND',
    exit: EXIT.FAILED,
    message: "Version '{version}' of {name} not found",
    hint: '{manifest} asks for a version {registry} does not have: pick another with `pkg add {name}@<version>`.',
  },
  // Files under version control (Perforce, Plastic SCM), read-only until checked out.
  FILES_READ_ONLY: {
    exit: EXIT.FAILED,
    message: 'Read-only files, not changed: {files}',
    hint: 'Nothing was changed. Check them out first (Perforce: p4 edit <files>), or let pkg do it: pkg config set checkoutCommand "p4 edit {placeholder}".',
  },
  FILES_STILL_READ_ONLY: {
    code: 'FILES_READ_ONLY',
    exit: EXIT.FAILED,
    message: 'Read-only files, not changed: {files}',
    hint: 'Nothing was changed. The checkoutCommand setting ran but left them read-only: check it with pkg config get checkoutCommand.',
  },
  CHECKOUT_FAILED: {
    exit: EXIT.FAILED,
    message: 'The checkoutCommand setting failed ({status}): {command}',
    hint: 'Nothing was changed. {output}',
  },
  // Windows: a file another program holds open cannot be renamed or removed (io/locked-files.ts).
  FILE_IN_USE: {
    exit: EXIT.FAILED,
    message: 'Another program keeps {file} open: pkg could not {action} it',
    hint: 'Close what holds it (the Unity editor, an IDE, a file preview, a virus scan), then run the command again.',
  },
  // `pkg publish`.
  NO_PACKAGE_JSON: {
    code: 'PACKAGE_INVALID',
    exit: EXIT.FAILED,
    message: 'No package.json in {folder}',
    hint: 'Run pkg publish in the package folder, or name it: pkg publish <folder>.',
  },
  PACKAGE_JSON_INVALID: {
    code: 'PACKAGE_INVALID',
    exit: EXIT.FAILED,
    message: '{file} is invalid: {problem}',
    hint: 'Fix package.json or the package folder, then run pkg publish again (--dry-run checks without publishing).',
  },
  PACKAGE_INVALID: {
    exit: EXIT.FAILED,
    message: 'Cannot publish {folder}: {problem}',
    hint: '{more}Fix the package{advice}, then run pkg publish again; --dry-run checks without publishing.',
  },
  PACK_INVALID: {
    code: 'PACKAGE_INVALID',
    exit: EXIT.FAILED,
    message: 'Cannot pack {folder}: {problem}',
    hint: '{more}Fix the package{advice}, then run pkg pack again.',
  },
  PUBLISH_CONFIG_INVALID: {
    code: 'PACKAGE_INVALID',
    exit: EXIT.FAILED,
    message: 'Cannot publish {folder}: {problem}',
    hint: 'Fix publishConfig in package.json, or remove it; --registry and --tag take precedence over it.',
  },
  INVALID_TAG: {
    code: 'USAGE',
    exit: EXIT.USAGE,
    message: "Invalid --tag '{tag}': a dist-tag is a word such as beta, and cannot look like a version or range",
  },
  PUBLISH_REFUSED: { exit: EXIT.FAILED, message: 'The registry refused {name}: {details}', hint: '{advice}' },
  ADVISORY_REFUSED: {
    exit: EXIT.FAILED,
    message: 'The registry refused the advisory of {name}: {details}',
    hint: 'Only a maintainer of a package published on this registry, or an administrator of the registry, may publish or withdraw its advisories; `pkg advisory add --help` shows the fields.',
  },
  CHANGE_REFUSED: { exit: EXIT.FAILED, message: 'The registry refused to change {name}: {details}', hint: '{advice}' },
  DIST_TAG_USAGE: {
    code: 'USAGE',
    exit: EXIT.USAGE,
    message: '{problem}',
    hint: 'pkg dist-tag add <name>@<version> <tag> | pkg dist-tag rm <name> <tag> | pkg dist-tag ls <name>',
  },
  DEPRECATE_NO_MATCH: {
    exit: EXIT.FAILED,
    message: 'No version of {name} matches {range}',
    hint: 'Published versions: {versions}',
  },
} as const satisfies Record<string, CatalogueEntry>;

type Catalogue = typeof CLIENT_ERRORS;
export type ClientErrorId = keyof Catalogue;
/** What `--json` reports as `code`: the entry's `code`, or its key. */
export type ClientErrorCode = {
  [K in ClientErrorId]: Catalogue[K] extends { code: infer C extends string } ? C : K;
}[ClientErrorId];

type Placeholders<S extends string> = S extends `${string}{${infer P}}${infer Rest}` ? P | Placeholders<Rest> : never;
type HintOf<K extends ClientErrorId> = Catalogue[K] extends { hint: infer H extends string } ? H : '';
/** The parameters an entry's templates name, each required. */
export type ClientErrorParams<K extends ClientErrorId> = Record<
  Placeholders<Catalogue[K]['message']> | Placeholders<HintOf<K>>,
  string | number
>;
type Arguments<K extends ClientErrorId> = [Placeholders<Catalogue[K]['message']> | Placeholders<HintOf<K>>] extends [never]
  ? [params?: Record<string, never>, options?: { cause?: unknown }]
  : [params: ClientErrorParams<K>, options?: { cause?: unknown }];

/** `template` with each `{name}` replaced by its parameter. */
export function fillTemplate(template: string, params: Readonly<Record<string, string | number>>): string {
  return template.replace(/\{(\w+)\}/g, (whole, name: string) => (name in params ? String(params[name]) : whole));
}

/** A failure the client knows how to report: one catalogue entry, its templates filled. */
export class ClientError<K extends ClientErrorId = ClientErrorId> extends Error {
  readonly id: K;
  readonly code: ClientErrorCode;
  readonly exitCode: ExitCode;
  readonly hint: string | undefined;

  constructor(id: K, ...args: Arguments<K>) {
    const [params = {}, options = {}] = args as [Readonly<Record<string, string | number>>?, { cause?: unknown }?];
    const entry: CatalogueEntry = CLIENT_ERRORS[id];
    super(fillTemplate(entry.message, params), options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ClientError';
    this.id = id;
    this.code = (entry.code ?? id) as ClientErrorCode;
    this.exitCode = entry.exit;
    this.hint = entry.hint === undefined ? undefined : fillTemplate(entry.hint, params);
  }
}
