/**
 * Fetching the registry documents a planner asks for. Planners are pure and say which documents
 * they miss; this loop fetches those (a few at a time) and asks again, so only what the plan
 * really depends on is downloaded.
 */
import type { PackageDocument } from '@pkg/protocol';
import type { RegistryClient } from '../http/registry-client.js';
import { ClientError } from '../errors/client-errors.js';
import type { NeedsDocuments } from '../resolve/plan-context.js';

/** Documents asked at once: a project's direct dependencies (often 10–30) in one wave, not several. */
const CONCURRENCY = 16;
const MAX_ROUNDS = 100;

export type DocumentMap = Map<string, PackageDocument | null>;

/** Where documents come from: one registry, or a project's registries (RegistrySet). */
export interface DocumentSource {
  fetch(names: Iterable<string>, into: DocumentMap): Promise<void>;
}

/** Every document from the one registry `client` talks to. */
export function singleRegistry(client: RegistryClient): DocumentSource {
  return { fetch: (names, into) => fetchDocuments(client, names, into) };
}

/**
 * The package's document, or null when the registry does not have it. Any other failure is
 * `failed to fetch package information`, with the cause as the hint.
 */
export async function fetchDocument(client: RegistryClient, name: string): Promise<PackageDocument | null> {
  try {
    const document = await client.packument(name);
    if (typeof document !== 'object' || document === null || typeof document.versions !== 'object') {
      throw new ClientError('UNREADABLE_ANSWER', { what: `an unreadable document for ${name}` });
    }
    return document;
  } catch (err) {
    if (err instanceof ClientError && err.code === 'PACKAGE_NOT_FOUND') return null;
    // A 401 already names the registry and how to log in to it; wrapped, --json would hide it.
    if (err instanceof ClientError && (err.code === 'AUTH_REQUIRED' || err.code === 'TOKEN_REJECTED')) throw err;
    const cause = err instanceof Error ? err.message : String(err);
    const hint = err instanceof ClientError && err.hint ? ` ${err.hint}` : '';
    throw new ClientError('FETCH_FAILED', { name, reason: `${cause}.${hint}` }, { cause: err });
  }
}

export async function fetchDocuments(client: RegistryClient, names: Iterable<string>, into: DocumentMap): Promise<void> {
  const queue = [...new Set(names)].filter((n) => !into.has(n));
  const workers = Array.from({ length: Math.min(CONCURRENCY, queue.length) }, async () => {
    for (let name = queue.shift(); name !== undefined; name = queue.shift()) {
      into.set(name, await fetchDocument(client, name));
    }
  });
  await Promise.all(workers);
}

/** Runs `plan` until it stops asking for documents, fetching what it asks for in between. */
export async function planWithDocuments<P extends { kind: 'plan' }>(
  source: DocumentSource,
  documents: DocumentMap,
  plan: (documents: DocumentMap) => P | NeedsDocuments,
): Promise<P> {
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const result = plan(documents);
    if (result.kind === 'plan') return result;
    const before = documents.size;
    await source.fetch(result.names, documents);
    if (documents.size === before) throw new Error(`planner keeps asking for ${result.names.join(', ')}`);
  }
  throw new Error('dependency tree too deep to plan');
}
