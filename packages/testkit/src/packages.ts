import type { StoredPackage } from '@pkg/server';
import { request, type JsonResponse } from './http.js';
import { publishBody, type PublishBodyOptions } from './publish-body.js';
import type { TestRegistry } from './registry.js';

/** Publishes one version the way `npm publish` does (`PUT /<name>` with the tarball attached). */
export async function publishVersion(
  baseUrl: string,
  token: string,
  name: string,
  version: string,
  options: PublishBodyOptions = {},
): Promise<JsonResponse> {
  const { body } = publishBody(name, version, options);
  return request(`${baseUrl}/${name}`, { method: 'PUT', token, body });
}

/** Everything a test needs to prove that a request changed nothing: documents and blobs. */
export interface StoreSnapshot {
  packages: Record<string, StoredPackage | undefined>;
  /** Blob key → size. */
  blobs: Record<string, number>;
}

/** Reads the named packages of a tenant and every blob of the store. */
export async function storeSnapshot(registry: TestRegistry, names: string[], tenant = ''): Promise<StoreSnapshot> {
  const packages: Record<string, StoredPackage | undefined> = {};
  for (const name of names) packages[name] = await registry.storage.packages.package(tenant, name).read();
  const blobs: Record<string, number> = {};
  for await (const blob of registry.storage.blobs.list()) blobs[blob.key] = blob.size;
  return { packages, blobs };
}
