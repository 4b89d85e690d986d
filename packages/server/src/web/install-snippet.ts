/** What installs a package: the `pkg` command and the lines of a Unity `Packages/manifest.json`. */
export interface InstallSnippet {
  command: string;
  /** A `Packages/manifest.json` fragment: the scoped registry entry plus the dependency. */
  manifest: string;
}

/**
 * The scoped registry is named after the registry's host name, and its scopes are the package
 * and every dependency this registry serves, exact names, sorted: the entry `pkg add` writes, so
 * Unity resolves all of them here and nothing else.
 */
export function installSnippet(baseUrl: string, name: string, version: string, scopes: Iterable<string>): InstallSnippet {
  const manifest = {
    scopedRegistries: [{ name: new URL(baseUrl).hostname, url: baseUrl, scopes: [...new Set([name, ...scopes])].sort() }],
    dependencies: { [name]: version },
  };
  return { command: `pkg add ${name}`, manifest: JSON.stringify(manifest, null, 2) };
}
