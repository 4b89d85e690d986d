import { publishVersion } from './packages.js';
import type { TarEntry } from './tarballs.js';

/** A version to publish: package.json fields beyond name and version (unity, dependencies, ...). */
export interface FixtureVersion {
  version: string;
  manifest?: Record<string, unknown>;
  tag?: string;
  /** Files of the tarball besides package.json (paths relative to `package/`). */
  files?: TarEntry[];
}

/**
 * Publishes several packages through the real publish API, each version in order (so `latest`
 * ends on the last one unless a tag says otherwise); throws unless every version is stored.
 */
export async function publishFixtures(baseUrl: string, token: string, packages: Record<string, FixtureVersion[]>): Promise<void> {
  for (const [name, versions] of Object.entries(packages)) {
    for (const v of versions) {
      const res = await publishVersion(baseUrl, token, name, v.version, {
        ...(v.manifest ? { manifest: v.manifest } : {}),
        ...(v.tag ? { tag: v.tag } : {}),
        ...(v.files ? { files: v.files } : {}),
      });
      if (res.status !== 201 && res.status !== 200)
        throw new Error(`publish ${name}@${v.version} failed: ${res.status} ${res.text}`);
    }
  }
}
