import { publishBody, type PublishBodyOptions } from './publish-body.js';
import { request } from './http.js';

/** A version to publish: package.json fields beyond name and version (unity, dependencies, ...). */
export interface FixtureVersion {
  version: string;
  manifest?: Record<string, unknown>;
  tag?: string;
}

/** Publishes one version through the real publish API (`PUT /<name>`); throws unless it is stored. */
export async function publishVersion(
  baseUrl: string,
  token: string,
  name: string,
  version: string,
  options: PublishBodyOptions = {},
): Promise<void> {
  const { body } = publishBody(name, version, options);
  const res = await request(`${baseUrl}/${encodeURIComponent(name)}`, { method: 'PUT', token, body });
  if (res.status !== 201 && res.status !== 200) throw new Error(`publish ${name}@${version} failed: ${res.status} ${res.text}`);
}

/** Publishes several packages, each version in order (so `latest` ends on the last one unless tagged). */
export async function publishFixtures(baseUrl: string, token: string, packages: Record<string, FixtureVersion[]>): Promise<void> {
  for (const [name, versions] of Object.entries(packages)) {
    for (const v of versions) {
      await publishVersion(baseUrl, token, name, v.version, {
        ...(v.manifest ? { manifest: v.manifest } : {}),
        ...(v.tag ? { tag: v.tag } : {}),
      });
    }
  }
}
