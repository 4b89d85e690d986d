/**
 * The registries a project's packages come from, and the fetching of their documents: each
 * package is asked of the registry that serves it (RegistryRouting), with that registry's
 * credentials, and of no other. A package no scope claims that a package of ours depends on is
 * asked of the registry of that package first (that is where it is published, and the entry of
 * that registry then gets its name); the engine maker's registry is never asked.
 */
import type { PackageDocument } from '@pkg/protocol';
import type { CommandContext } from '../context.js';
import { normalizeRegistryUrl, sameRegistryUrl } from '../engines/registry-url.js';
import type { RegistryClient } from '../http/registry-client.js';
import { ClientError } from '../errors/client-errors.js';
import { projectRegistryUrl } from './project-view.js';
import { dependenciesOf } from '../resolve/plan-context.js';
import type { RegistryRouting } from '../resolve/registry-routing.js';
import { fetchDocument, type DocumentMap, type DocumentSource } from './registry-documents.js';

/** Documents asked at once: a project's direct dependencies (often 10–30) in one wave, not several. */
const CONCURRENCY = 16;

/** Failures of a registry rather than of one package: a tolerant set goes on without that registry. */
const UNREACHABLE = new Set<string>(['FETCH_FAILED', 'INSECURE_REGISTRY', 'CONNECT_FAILED', 'REGISTRY_UNREACHABLE']);

export interface RegistrySetOptions {
  /** Names no scope claims that still come from this registry (what `add` was asked for). */
  explicit?: { names: ReadonlySet<string>; registry: string };
  /** Packages whose registry is already known (global packages record theirs): asked there only. */
  fixed?: ReadonlyMap<string, string>;
  /**
   * A registry that cannot be asked (down, refused as plain http) costs only its own packages:
   * they are left out (`failedFor`) and the others fetched (`list`). Otherwise its failure stops the run.
   */
  tolerant?: boolean;
  /** The manifest naming the registries, for messages about one of them. */
  manifest?: string;
}

export class RegistrySet implements DocumentSource {
  readonly routing: RegistryRouting;
  /** The registry each fetched package came from (absent: not asked, or nobody had it). */
  readonly servedBy = new Map<string, string>();
  /** Packages served by the engine maker's registry, which pkg does not ask. */
  readonly unqueried = new Set<string>();
  /** Documents requested per registry URL, in the order the registries were first asked. */
  readonly asked = new Map<string, string[]>();
  readonly #ctx: CommandContext;
  readonly #clients = new Map<string, Promise<RegistryClient>>();
  readonly #explicit: RegistrySetOptions['explicit'];
  readonly #fixed: ReadonlyMap<string, string>;
  readonly #tolerant: boolean;
  readonly #manifest: string;
  /** Registries that could not be asked, with why (tolerant sets only). */
  readonly unreachable = new Map<string, ClientError>();
  readonly #failed = new Map<string, string>();

  constructor(ctx: CommandContext, routing: RegistryRouting, options: RegistrySetOptions = {}) {
    this.#ctx = ctx;
    this.routing = routing;
    this.#explicit = options.explicit;
    this.#fixed = options.fixed ?? new Map();
    this.#tolerant = options.tolerant ?? false;
    this.#manifest = options.manifest ?? 'the manifest';
  }

  /** Why `name` could not be fetched, when its registry could not be asked (tolerant sets only). */
  failedFor(name: string): ClientError | undefined {
    const url = this.#failed.get(name);
    return url === undefined ? undefined : this.unreachable.get(url);
  }

  /** The client of `url`, built once, with the credentials for that registry. */
  client(url: string): Promise<RegistryClient> {
    const key = normalizeRegistryUrl(url);
    let client = this.#clients.get(key);
    if (!client) {
      client = (async () => this.#ctx.registry(projectRegistryUrl(url, this.#manifest)))();
      this.#clients.set(key, client);
    }
    return client;
  }

  /** The registry a package is (or would be) fetched from, before any fetch: its route. */
  registryOf(name: string): string {
    if (this.servedBy.has(name)) return this.servedBy.get(name)!;
    const fixed = this.#fixed.get(name);
    if (fixed !== undefined) return normalizeRegistryUrl(fixed);
    const explicit = this.#explicit;
    if (explicit?.names.has(name) && !this.routing.coveringEntry(name)) return normalizeRegistryUrl(explicit.registry);
    return this.routing.route(name).url;
  }

  /** The registries asked so far, in the order first asked. */
  get registriesAsked(): string[] {
    return [...this.asked.keys()];
  }

  /** True when `name` comes from the engine maker's registry, which pkg leaves to the editor. */
  isUnqueried(name: string): boolean {
    return this.unqueried.has(name);
  }

  async fetch(names: Iterable<string>, into: DocumentMap): Promise<void> {
    const queue = [...new Set(names)].filter((n) => !into.has(n));
    const workers = Array.from({ length: Math.min(CONCURRENCY, queue.length) }, async () => {
      for (let name = queue.shift(); name !== undefined; name = queue.shift()) {
        into.set(name, await this.#fetchOne(name, into));
      }
    });
    await Promise.all(workers);
  }

  async #fetchOne(name: string, known: DocumentMap): Promise<PackageDocument | null> {
    const candidates: string[] = [];
    const fixed = this.#fixed.get(name);
    if (fixed !== undefined) candidates.push(normalizeRegistryUrl(fixed));
    const explicit = this.#explicit;
    const covered = this.routing.coveringEntry(name) !== undefined;
    if (fixed === undefined) {
      if (explicit?.names.has(name) && !covered) candidates.push(normalizeRegistryUrl(explicit.registry));
      if (!covered) candidates.push(...this.#dependentRegistries(name, known));
      candidates.push(this.routing.route(name).url);
    }
    for (const url of [...new Set(candidates)]) {
      if (this.routing.isUnqueried(url)) {
        this.unqueried.add(name);
        return null;
      }
      if (this.unreachable.has(url)) {
        this.#failed.set(name, url);
        return null;
      }
      this.asked.set(url, [...(this.asked.get(url) ?? []), name]);
      let document: PackageDocument | null;
      try {
        document = await fetchDocument(await this.client(url), name);
      } catch (err) {
        if (!this.#tolerant || !(err instanceof ClientError) || !UNREACHABLE.has(err.code)) throw err;
        this.unreachable.set(url, err as ClientError);
        this.#failed.set(name, url);
        return null;
      }
      if (document) {
        this.servedBy.set(name, url);
        return document;
      }
    }
    return null;
  }

  /** Registries of fetched packages whose versions depend on `name`. */
  #dependentRegistries(name: string, known: DocumentMap): string[] {
    const urls: string[] = [];
    for (const [dependent, document] of known) {
      const url = this.servedBy.get(dependent);
      if (!document || !url || urls.some((u) => sameRegistryUrl(u, url))) continue;
      const versions = Object.values(document.versions ?? {});
      if (versions.some((record) => dependenciesOf(record).some(([dep]) => dep === name))) urls.push(url);
    }
    return urls;
  }
}
