import type { Deps, HttpTransport } from './deps.js';
import { ClientConfig } from './config/client-config.js';
import { DEFAULT_REGISTRY } from './config/keys.js';
import { clientPaths, type ClientPaths } from './config/paths.js';
import { parseRegistryUrl, registryHostKey, type RegistryUrl } from './http/registry-url.js';
import type { OneTimePassword, RegistryClient } from './http/registry-client.js';
import type { DocumentCache, DocumentFreshness } from './http/document-cache.js';
import { Prompter } from './io/prompt.js';
import type { TokenStore } from './auth/token-store.js';
import type { Reporter } from './output/reporter.js';
import { ClientError } from './errors/client-errors.js';

interface Credential {
  token: string | null;
  scheme?: 'Bearer' | 'Basic';
  /** Send it only once the registry asks (upmconfig's `alwaysAuth = false`). */
  lazy?: boolean;
  /** Where it came from, for messages. */
  source?: string;
}

export interface RegistryClientRequest {
  /** Token to send; by default the host's stored token (or PKG_TOKEN), when there is one. */
  token?: string | null;
}

/**
 * What a command works with: the injected IO, the reporter, and lazily built services
 * (config file, token store, registry clients). Nothing here touches real IO by itself;
 * it all goes through `deps`.
 */
export class CommandContext {
  readonly deps: Deps;
  readonly reporter: Reporter;
  readonly paths: ClientPaths;
  #config: Promise<ClientConfig> | null = null;
  #tokens: Promise<TokenStore> | null = null;
  #transport: Promise<HttpTransport> | null = null;
  #prompter: Prompter | null = null;
  readonly #registryFlag: string | undefined;
  /** The run's one-time password: `--otp`, then whatever was typed when a registry asked. */
  readonly #oneTimePassword: OneTimePassword;
  #upmconfigWarned = false;
  readonly #documentFreshness: DocumentFreshness;
  #documents: Promise<DocumentCache> | null = null;

  /**
   * `registryFlag` is the run's `--registry`, which decides the registry in effect; `otp` its
   * `--otp`, sent to the registries of the run (they ask for it on writes of accounts with
   * two-factor sign-in).
   */
  constructor(
    deps: Deps,
    reporter: Reporter,
    registryFlag?: string,
    options: { otp?: string; documentFreshness?: DocumentFreshness } = {},
  ) {
    this.deps = deps;
    this.reporter = reporter;
    this.paths = clientPaths(deps.env, deps.platform, deps.homedir);
    this.#registryFlag = registryFlag;
    this.#documentFreshness = options.documentFreshness ?? 'revalidate';
    this.#oneTimePassword = {
      code: options.otp?.trim() || undefined,
      // Only a person at a terminal can answer; piped or in CI, --otp is the way.
      ask: (again) =>
        this.prompter.interactive
          ? this.prompter.ask(again ? 'That code was not accepted; one-time password' : 'One-time password')
          : Promise.resolve(undefined),
    };
  }

  /** The per-user config file, read once. */
  config(): Promise<ClientConfig> {
    this.#config ??= ClientConfig.load(this.deps.fs, this.paths.configDir);
    return this.#config;
  }

  /**
   * The registry in effect: `--registry`, else PKG_REGISTRY, else the `registry` setting,
   * else the default. Validated (https://, or http:// to loopback only).
   */
  async registryUrl(flag?: string): Promise<RegistryUrl> {
    if (flag !== undefined) return parseRegistryUrl(flag);
    const fromEnv = this.deps.env.PKG_REGISTRY?.trim();
    if (fromEnv) return parseRegistryUrl(fromEnv);
    const config = await this.config();
    return parseRegistryUrl(String(config.get('registry') ?? DEFAULT_REGISTRY));
  }

  /** Where tokens are kept, chosen once per run (keychain, encrypted file; PKG_TOKEN overrides). */
  tokens(): Promise<TokenStore> {
    this.#tokens ??= (async () => {
      const { selectTokenStore } = await import('./auth/select.js');
      const config = await this.config();
      const { deps } = this;
      // A bad --registry is reported by the command itself; PKG_TOKEN then speaks for no host.
      const inEffect = await this.registryUrl(this.#registryFlag).catch(() => null);
      return selectTokenStore({
        envTokenHost: inEffect ? registryHostKey(inEffect) : '',
        setting: String(config.get('tokenStore')),
        env: deps.env,
        platform: deps.platform,
        dataDir: this.paths.dataDir,
        fs: deps.fs,
        loadKeyring: deps.loadKeyring,
        sleep: deps.sleep,
        now: deps.now,
        debug: (message) => this.reporter.debug(message),
      });
    })();
    return this.#tokens;
  }

  /** The stored token of `registry`'s host (or PKG_TOKEN), registered as a secret to mask. */
  async storedToken(registry: RegistryUrl): Promise<string | null> {
    const store = await this.tokens();
    let token: string | null;
    try {
      token = await store.get(registryHostKey(registry));
    } catch (err) {
      throw new ClientError('TOKEN_READ_FAILED', { reason: (err as Error).message }, { cause: err });
    }
    if (token) this.reporter.addSecret(token);
    return token;
  }

  /**
   * A client for `registry`, sending its credential unless told otherwise: PKG_TOKEN (for the
   * registry in effect), else the token `pkg login` stored for the host, else the one Unity's
   * `~/.upmconfig.toml` holds for the URL.
   */
  async registry(registry: RegistryUrl, request: RegistryClientRequest = {}): Promise<RegistryClient> {
    const [{ RegistryClient }, credential, documentCache] = await Promise.all([
      import('./http/registry-client.js'),
      request.token === undefined ? this.#credentialForReads(registry) : Promise.resolve<Credential>({ token: request.token }),
      this.#documentCache(),
    ]);
    // Opened on the first request: a run that the caches answer (documents fresh, tarballs
    // verified) never loads the HTTP stack.
    const transport: HttpTransport = {
      send: async (req) => (await this.#openTransport()).send(req),
      stream: async (req) => (await this.#openTransport()).stream(req),
      close: async () => undefined,
    };
    const { token } = credential;
    if (token) this.reporter.addSecret(token);
    const fromEnv = Boolean(token) && token === this.deps.env.PKG_TOKEN?.trim();
    return new RegistryClient({
      registry,
      transport,
      token,
      ...(credential.scheme ? { tokenScheme: credential.scheme } : {}),
      ...(credential.lazy ? { lazyAuth: true } : {}),
      // A token given by the command (whoami's) that is PKG_TOKEN's is named as such too.
      ...(credential.source ? { tokenSource: credential.source } : fromEnv ? { tokenSource: 'the token in PKG_TOKEN' } : {}),
      userAgent: `pkg/${this.deps.version}`,
      oneTimePassword: this.#oneTimePassword,
      sleep: this.deps.sleep,
      now: this.deps.now,
      debug: (message) => this.reporter.debug(message),
      activity: (label) => this.reporter.activity(label),
      documentCache,
      documentFreshness: this.#documentFreshness,
    });
  }

  /** The run's document cache (package documents kept between runs, http/document-cache.ts). */
  #documentCache(): Promise<DocumentCache> {
    this.#documents ??= import('./http/document-cache.js').then(
      ({ DocumentCache }) => new DocumentCache(this.deps.fs, this.paths.cacheDir, this.deps.now),
    );
    return this.#documents;
  }

  // A damaged token store must not stop anonymous reads: warn and go on without a token.
  async #tokenForReads(registry: RegistryUrl): Promise<string | null> {
    try {
      return await this.storedToken(registry);
    } catch (err) {
      if (!(err instanceof ClientError)) throw err;
      this.reporter.warn(`${err.message}; continuing without a token.`);
      return null;
    }
  }

  async #credentialForReads(registry: RegistryUrl): Promise<Credential> {
    const stored = await this.#tokenForReads(registry);
    if (stored) {
      const fromEnv = (await this.tokens()).overridden && stored === this.deps.env.PKG_TOKEN?.trim();
      return { token: stored, scheme: 'Bearer', source: fromEnv ? 'the token in PKG_TOKEN' : 'the token `pkg login` stored' };
    }
    const { readUpmCredential, upmConfigPath } = await import('./auth/upmconfig.js');
    const file = upmConfigPath(this.deps.env, this.deps.homedir, this.deps.platform);
    try {
      const upm = await readUpmCredential(this.deps.fs, file, registry);
      if (!upm) return { token: null };
      this.reporter.debug(`using the credential for ${registry} from ${file}`);
      const source = upm.scheme === 'Basic' ? `the _auth name and password in ${file}` : `the token in ${file}`;
      return { token: upm.value, scheme: upm.scheme, lazy: !upm.alwaysAuth, source };
    } catch (err) {
      // Once per run, however many registries the project names.
      if (!this.#upmconfigWarned) {
        this.reporter.warn(`Cannot read ${file}: ${(err as Error).message}; continuing without its credentials.`);
      }
      this.#upmconfigWarned = true;
      return { token: null };
    }
  }

  /** Interactive questions (or answers piped on stdin). */
  get prompter(): Prompter {
    this.#prompter ??= new Prompter(this.deps.stdin, this.reporter.promptOutput);
    return this.#prompter;
  }

  /** Releases what the run opened (sockets, stdin). */
  async close(): Promise<void> {
    this.#prompter?.close();
    if (this.#documents) await (await this.#documents).prune().catch(() => undefined);
    if (this.#transport) await (await this.#transport.catch(() => null))?.close();
  }

  async #openTransport(): Promise<HttpTransport> {
    this.#transport ??= (async () => {
      const config = await this.config();
      return this.deps.createTransport({ timeoutMs: Number(config.get('timeout')) * 1000 });
    })();
    return this.#transport;
  }
}
