import {
  isErrorBody,
  SIGNUP_HEADER,
  type DistTags,
  type LoginResponse,
  type PackageDocument,
  type SearchResponse,
  type VersionRecord,
  type WhoamiResponse,
} from '@pkg/protocol';
import type { HttpRequest, HttpResponse, HttpStreamResponse, HttpTransport } from '../deps.js';
import { ClientError } from '../errors/client-errors.js';
import { isFresh, type DocumentCache, type DocumentFreshness } from './document-cache.js';
import { DEFAULT_RETRY, retryDelay, type RetryPolicy } from './retry.js';
import { registryEndpoint, registryHostKey, type RegistryUrl } from './registry-url.js';
import { errorCode, isNetworkError, transportError } from './transport-errors.js';

export interface RegistryClientOptions {
  registry: RegistryUrl;
  transport: HttpTransport;
  /** Sent as `Authorization: Bearer` to the registry's own host, never to another host. */
  token?: string | null;
  /** `Basic` for a `user:password` credential (Unity's `_auth`); `Bearer` by default. */
  tokenScheme?: 'Bearer' | 'Basic';
  /**
   * Send the token only once the registry asks for it with a 401 (npm's and Unity's
   * `alwaysAuth = false`); by default it goes with every request to the registry's host.
   */
  lazyAuth?: boolean;
  /** Which token it is, for the hint of a 401: `the token in PKG_TOKEN`, `the token in <file>`. */
  tokenSource?: string;
  userAgent: string;
  /** The run's one-time password, shared by its clients (two-factor sign-in). */
  oneTimePassword?: OneTimePassword;
  sleep(ms: number): Promise<void>;
  now(): Date;
  /** --verbose traces; tokens never reach it. */
  debug(message: string): void;
  /** Told when a request (or a wait before retrying) starts; returns its end (the spinner). */
  activity?(label: string): () => void;
  retry?: RetryPolicy;
  /** Package documents kept between runs (http/document-cache.ts); none: every document is fetched. */
  documentCache?: DocumentCache;
  /** `max-age` (default): a fresh cached document is used without asking; `revalidate`: always asked for, conditionally. */
  documentFreshness?: DocumentFreshness;
}

/**
 * The one-time password of a run: sent as `npm-otp` to the registry's own host once known, and
 * asked for (on a terminal) when the registry answers 401 with `WWW-Authenticate: OTP`, as npm
 * does. The code typed is kept for the rest of the run.
 */
export interface OneTimePassword {
  code: string | undefined;
  /** Asks a person for a code (`again`: the last one was refused); undefined when nobody can answer. */
  ask(again: boolean): Promise<string | undefined>;
}

/** The header a one-time password travels in (npm's). */
const OTP_HEADER = 'npm-otp';

/** Codes asked for in one request before giving up: a person mistyping twice gets a third try. */
const OTP_ATTEMPTS = 3;

/** The registry's answer when a one-time password is needed: npm's own challenge. */
function asksForOtp(response: HttpResponse | HttpStreamResponse): boolean {
  return response.status === 401 && /^otp\b/i.test(response.headers['www-authenticate'] ?? '');
}

/** A tarball download as it starts: `offset` is the first byte of `body` within the file. */
export interface TarballStream {
  offset: number;
  /** The whole file's size, when the registry says it. */
  size: number | undefined;
  body: AsyncIterable<Uint8Array>;
}

/** The registry cannot serve the range asked for (416, or another range than asked): start again. */
export class RangeNotUsable extends Error {
  constructor() {
    super('the registry cannot resume this download');
    this.name = 'RangeNotUsable';
  }
}

/** A request body too big to hold: opened anew for each attempt, of a known length. */
/** One advisory of npm's bulk answer. */
export interface BulkAdvisory {
  id: string;
  url: string;
  title: string;
  severity: string;
  vulnerable_versions: string;
  /** pkg-registry's addition: the versions that fix it (absent from npm's and other registries' answers). */
  patched_versions?: string;
}

/** One advisory as `/-/pkg/v1/advisories/<name>` lists it. */
export interface PackageAdvisory extends BulkAdvisory {
  name: string;
  patched_versions: string;
  description: string;
  published: string;
  withdrawn: string | null;
}

export interface StreamedBody {
  length: number;
  contentType: string;
  open(): AsyncIterable<Uint8Array>;
}

interface CallOptions {
  body?: unknown;
  streamedBody?: StreamedBody;
  /** Safe to repeat after a 5xx or a dropped connection. */
  idempotent: boolean;
  /** Token to send instead of the client's own (null: send none). */
  token?: string | null;
  accept?: string;
  headers?: Record<string, string>;
}

/** A non-2xx answer, with the registry's `{error, code, details}` when it sent one. */
export class RegistryHttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string | undefined,
    readonly details: string,
    readonly headers: Record<string, string | undefined>,
  ) {
    super(`HTTP ${status}${code ? ` ${code}` : ''}: ${details}`);
    this.name = 'RegistryHttpError';
  }
}

/**
 * Typed calls to one registry. Every call goes through `#send`, which applies the retry
 * policy, keeps tokens on the registry's host, traces with secrets redacted, and turns
 * transport failures into the spec's client errors. Status-specific meaning (wrong password,
 * unknown package) is decided by each method.
 */
export class RegistryClient {
  readonly registry: RegistryUrl;
  readonly host: string;
  readonly #options: RegistryClientOptions;
  #challenged = false;

  constructor(options: RegistryClientOptions) {
    this.#options = options;
    this.registry = options.registry;
    this.host = registryHostKey(options.registry);
  }

  /** Whether calls carry a token. */
  get authenticated(): boolean {
    return Boolean(this.#options.token);
  }

  /** `PUT /-/user/org.registry.user:<name>`: a new token, or INVALID_CREDENTIALS. */
  async login(name: string, password: string, email: string, options: { signup?: boolean } = {}): Promise<LoginResponse> {
    const id = `org.registry.user:${name}`;
    try {
      const body = await this.#json<LoginResponse>('PUT', `/-/user/${encodeURIComponent(id)}`, {
        body: { _id: id, name, password, email, type: 'user', roles: [], date: this.#options.now().toISOString() },
        idempotent: false,
        token: null,
        ...(options.signup === false ? { headers: { [SIGNUP_HEADER]: 'false' } } : {}),
      });
      if (typeof body?.token !== 'string' || body.token.length === 0) {
        throw new ClientError('UNREADABLE_ANSWER', { what: 'no token with an accepted login' });
      }
      return body;
    } catch (err) {
      if (err instanceof RegistryHttpError && (err.status === 401 || err.status === 403 || err.status === 409)) {
        throw new ClientError('INVALID_CREDENTIALS');
      }
      throw this.#statusError(err, 'login');
    }
  }

  /** `GET /-/whoami` with `token` (or the client's own). */
  async whoami(token?: string): Promise<WhoamiResponse> {
    try {
      const body = await this.#json<WhoamiResponse>('GET', '/-/whoami', { idempotent: true, ...(token ? { token } : {}) });
      if (typeof body?.username !== 'string')
        throw new ClientError('UNREADABLE_ANSWER', { what: 'a whoami answer without a username' });
      return body;
    } catch (err) {
      if (err instanceof RegistryHttpError && err.status === 401) {
        throw this.authenticated || token
          ? this.#tokenRejected(token !== undefined && token !== this.#options.token)
          : new ClientError('NOT_LOGGED_IN', { registry: this.registry });
      }
      throw this.#statusError(err, 'whoami');
    }
  }

  /** `GET /-/npm/v1/tokens`, every page: the caller's tokens, newest first (never the tokens themselves). */
  async listTokens(): Promise<RegistryToken[]> {
    const tokens: RegistryToken[] = [];
    let path: string | null = '/-/npm/v1/tokens';
    try {
      while (path !== null) {
        const page: TokenPage = await this.#json<TokenPage>('GET', path, { idempotent: true });
        if (!Array.isArray(page?.objects)) throw new ClientError('UNREADABLE_ANSWER', { what: 'a token list without objects' });
        tokens.push(...page.objects);
        const next = page.urls?.next;
        // The next page on this registry only: a token is never sent to another host.
        path =
          typeof next === 'string' && new URL(next).origin === new URL(this.registry).origin
            ? new URL(next).pathname + new URL(next).search
            : null;
      }
      return tokens;
    } catch (err) {
      throw this.#statusError(err, 'tokens');
    }
  }

  /** `POST /-/npm/v1/tokens`: a new token with limits; the answer holds it, once. */
  async createToken(request: NewTokenRequest): Promise<RegistryToken & { token: string }> {
    try {
      const body = await this.#json<RegistryToken & { token: string }>('POST', '/-/npm/v1/tokens', {
        idempotent: false,
        body: request,
      });
      if (typeof body?.token !== 'string' || body.token.length < 20) {
        throw new ClientError('UNREADABLE_ANSWER', { what: 'no token in the answer to a token request' });
      }
      return body;
    } catch (err) {
      if (err instanceof RegistryHttpError && err.status === 401 && err.details.startsWith('Invalid credentials')) {
        throw new ClientError('INVALID_CREDENTIALS');
      }
      throw this.#statusError(err, 'tokens');
    }
  }

  /** `DELETE /-/npm/v1/tokens/token/<key>`. */
  async deleteToken(key: string): Promise<void> {
    try {
      await this.#json('DELETE', `/-/npm/v1/tokens/token/${encodeURIComponent(key)}`, { idempotent: true });
    } catch (err) {
      if (err instanceof RegistryHttpError && err.status === 404)
        throw new ClientError('TOKEN_NOT_FOUND', { key, registry: this.registry });
      throw this.#statusError(err, 'tokens');
    }
  }

  /** `DELETE /-/user/token/<token>`: the token stops working. */
  async revokeToken(token: string): Promise<void> {
    try {
      await this.#json('DELETE', `/-/user/token/${encodeURIComponent(token)}`, { idempotent: true, token });
    } catch (err) {
      throw this.#statusError(err, 'logout');
    }
  }

  /** `GET /-/v1/search?text=&size=&from=`. */
  async search(text: string, size: number, from = 0): Promise<SearchResponse> {
    const query = new URLSearchParams({ text, size: String(size), from: String(from) });
    try {
      const body = await this.#json<SearchResponse>('GET', `/-/v1/search?${query.toString()}`, { idempotent: true });
      if (!Array.isArray(body?.objects)) throw new ClientError('UNREADABLE_ANSWER', { what: 'a search answer without results' });
      return body;
    } catch (err) {
      throw this.#statusError(err, 'search');
    }
  }

  /**
   * `GET /<name>`: the full package document; through the document cache when the client has
   * one: a fresh entry answers without a request, an older one is asked for with its validators
   * and reused on `304`.
   */
  async packument(name: string): Promise<PackageDocument> {
    const cache = this.#options.documentCache;
    const pathname = `/${encodeURIComponent(name)}`;
    try {
      if (!cache) return await this.#json<PackageDocument>('GET', pathname, { idempotent: true });
      const cached = await cache.read(this.registry, name);
      const reused = cached ? parseDocument(cached.body) : undefined;
      const entry = reused !== undefined ? cached : null;
      if (
        entry &&
        reused !== undefined &&
        this.#options.documentFreshness !== 'revalidate' &&
        isFresh(entry, this.#options.now())
      ) {
        this.#options.debug(`✓ ${name}: the cached document (fresh)`);
        return reused;
      }
      const headers: Record<string, string> = {};
      if (entry?.etag) headers['if-none-match'] = entry.etag;
      if (entry?.lastModified) headers['if-modified-since'] = entry.lastModified;
      const response = await this.#send('GET', registryEndpoint(this.registry, pathname), { idempotent: true, headers });
      if (response.status === 304 && entry && reused !== undefined) {
        await cache.revalidated(this.registry, name, entry, response.headers);
        return reused;
      }
      if (response.status < 200 || response.status >= 300) throw httpError(response);
      if (response.body.length === 0) return undefined as unknown as PackageDocument;
      const text = response.body.toString('utf8');
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        throw new ClientError('INVALID_RESPONSE', { request: `GET ${redactPath(pathname)}`, registry: this.registry });
      }
      // Only a document is kept; anything else goes to the caller's checks as it came, as without a cache.
      if (isDocument(parsed)) await cache.store(this.registry, name, response.headers, text);
      return parsed as PackageDocument;
    } catch (err) {
      throw this.#statusError(err, 'package', name);
    }
  }

  /** Drops the cached document of `name`: this client just changed it. */
  async #forgetDocument(name: string): Promise<void> {
    await this.#options.documentCache?.forget(this.registry, name);
  }

  /** `GET /<name>/<version>`: one version record (a dist-tag works as the version too). */
  async versionRecord(name: string, version: string): Promise<VersionRecord> {
    try {
      return await this.#json<VersionRecord>('GET', `/${encodeURIComponent(name)}/${encodeURIComponent(version)}`, {
        idempotent: true,
      });
    } catch (err) {
      if (err instanceof RegistryHttpError && err.status === 404) {
        throw new ClientError('VERSION_NOT_FOUND', { version, name });
      }
      throw this.#statusError(err, 'package', name);
    }
  }

  /**
   * npm's bulk advisory request, `{<name>: [<version>, …]}`: the advisories in force that
   * affect one of the versions, by name, and the registry's `npm-notice` when it sent one (a
   * pkg-registry says so when an upstream it asks for advisories could not be asked).
   */
  async advisoriesFor(
    versions: Record<string, string[]>,
  ): Promise<{ advisories: Record<string, BulkAdvisory[]>; notice: string | null }> {
    const pathname = '/-/npm/v1/security/advisories/bulk';
    try {
      const response = await this.#send('POST', registryEndpoint(this.registry, pathname), { idempotent: true, body: versions });
      if (response.status < 200 || response.status >= 300) throw httpError(response);
      let body: unknown;
      try {
        body = JSON.parse(response.body.toString('utf8'));
      } catch {
        body = undefined;
      }
      if (typeof body !== 'object' || body === null) throw new ClientError('UNREADABLE_ANSWER', { what: 'an advisory answer' });
      return { advisories: body as Record<string, BulkAdvisory[]>, notice: response.headers['npm-notice'] ?? null };
    } catch (err) {
      throw this.#statusError(err, 'advisories');
    }
  }

  /** `GET /-/pkg/v1/advisories/<name>`: the package's advisories (withdrawn ones too when asked). */
  async advisories(name: string, withdrawn = false): Promise<PackageAdvisory[]> {
    try {
      const query = withdrawn ? '?withdrawn=true' : '';
      const body = await this.#json<{ advisories?: unknown }>('GET', `/-/pkg/v1/advisories/${encodeURIComponent(name)}${query}`, {
        idempotent: true,
      });
      if (!Array.isArray(body?.advisories)) throw new ClientError('UNREADABLE_ANSWER', { what: 'an advisory list' });
      return body.advisories as PackageAdvisory[];
    } catch (err) {
      throw this.#statusError(err, 'package', name);
    }
  }

  /** `POST /-/pkg/v1/advisories/<name>`: publishes (or, for an id it has, replaces) an advisory. */
  async publishAdvisory(name: string, advisory: Record<string, unknown>): Promise<PackageAdvisory> {
    try {
      return await this.#json<PackageAdvisory>('POST', `/-/pkg/v1/advisories/${encodeURIComponent(name)}`, {
        idempotent: false,
        body: advisory,
      });
    } catch (err) {
      throw this.#advisoryRefusal(err, name);
    }
  }

  /** `DELETE /-/pkg/v1/advisories/<name>/<id>`. */
  async withdrawAdvisory(name: string, id: string): Promise<PackageAdvisory> {
    try {
      return await this.#json<PackageAdvisory>(
        'DELETE',
        `/-/pkg/v1/advisories/${encodeURIComponent(name)}/${encodeURIComponent(id)}`,
        { idempotent: true },
      );
    } catch (err) {
      throw this.#advisoryRefusal(err, name);
    }
  }

  #advisoryRefusal(err: unknown, name: string): unknown {
    if (err instanceof RegistryHttpError && [400, 403, 404, 422].includes(err.status) && err.details) {
      return new ClientError('ADVISORY_REFUSED', { name, details: err.details });
    }
    return this.#statusError(err, 'advisories', name);
  }

  /** `GET /-/package/<name>/dist-tags`. */
  async distTags(name: string): Promise<DistTags> {
    try {
      return await this.#json<DistTags>('GET', `/-/package/${encodeURIComponent(name)}/dist-tags`, { idempotent: true });
    } catch (err) {
      throw this.#statusError(err, 'package', name);
    }
  }

  /**
   * `GET /-/pkg/registry`: what a pkg-registry calls itself; undefined when the registry does not
   * say (another kind of registry, an older one) or cannot be asked: the caller then names it.
   */
  async registryName(): Promise<string | undefined> {
    try {
      const answer = await this.#json<{ name?: unknown }>('GET', '/-/pkg/registry', { idempotent: true });
      const name = typeof answer?.name === 'string' ? answer.name.trim() : '';
      // A name goes into the manifest and onto the screen: one short printable line.
      const printable = [...name].every((c) => c.charCodeAt(0) >= 0x20);
      return name !== '' && name.length <= 200 && printable ? name : undefined;
    } catch {
      return undefined;
    }
  }

  /** `PUT /-/package/<name>/dist-tags/<tag>` (the body is the version as a JSON string), as `npm dist-tag add`. */
  async setDistTag(name: string, tag: string, version: string): Promise<void> {
    const path = `/-/package/${encodeURIComponent(name)}/dist-tags/${encodeURIComponent(tag)}`;
    await this.#change(name, () => this.#json('PUT', path, { idempotent: true, body: version }));
  }

  /** `DELETE /-/package/<name>/dist-tags/<tag>`, as `npm dist-tag rm`. */
  async removeDistTag(name: string, tag: string): Promise<void> {
    const path = `/-/package/${encodeURIComponent(name)}/dist-tags/${encodeURIComponent(tag)}`;
    await this.#change(name, () => this.#json('DELETE', path, { idempotent: true }));
  }

  /** `PUT /<name>` with the edited document and no attachments, as `npm deprecate` sends it. */
  async updateDocument(name: string, document: PackageDocument): Promise<void> {
    await this.#change(name, () => this.#json('PUT', `/${encodeURIComponent(name)}`, { idempotent: true, body: document }));
  }

  /** A change of a package's tags or document: the registry's refusal says why. */
  async #change(name: string, call: () => Promise<unknown>): Promise<void> {
    try {
      await call();
    } catch (err) {
      await this.#forgetDocument(name);
      if (err instanceof RegistryHttpError && [400, 403, 409, 422].includes(err.status)) {
        throw new ClientError('CHANGE_REFUSED', {
          name,
          details: err.details || `HTTP ${err.status}`,
          advice:
            err.status === 403
              ? `Only a maintainer of ${name} may change it on ${this.registry}.`
              : err.status === 409
                ? 'The package changed meanwhile: run the command again.'
                : 'Fix what the registry names, then run the command again.',
        });
      }
      throw this.#statusError(err, 'package', name);
    }
    await this.#forgetDocument(name);
  }

  /**
   * `PUT /<name>` with an npm publish document. The registry's reason for a refusal (a version
   * that exists, a name it does not allow, a body too large) becomes PUBLISH_REFUSED.
   */
  async publish(name: string, body: StreamedBody): Promise<void> {
    try {
      await this.#json('PUT', `/${encodeURIComponent(name)}`, { idempotent: false, streamedBody: body });
    } catch (err) {
      await this.#forgetDocument(name);
      if (err instanceof RegistryHttpError && [400, 403, 409, 413, 422].includes(err.status)) {
        throw new ClientError('PUBLISH_REFUSED', {
          name,
          details: err.details || `HTTP ${err.status}`,
          advice:
            err.status === 403
              ? `Your account may publish only packages it owns on ${this.registry}.`
              : err.status === 409
                ? 'A published version cannot be replaced: raise "version" in package.json.'
                : 'Fix what the registry names, then publish again.',
        });
      }
      throw this.#statusError(err, 'publish', name);
    }
    await this.#forgetDocument(name);
  }

  /** Downloads a tarball (`dist.tarball`, possibly on a CDN host: it then gets no token). */
  async tarball(url: string): Promise<Buffer> {
    const target = new URL(url);
    const response = await this.#send('GET', target, { idempotent: true, accept: 'application/octet-stream' });
    if (response.status !== 200) throw this.#statusError(httpError(response), 'tarball', target.pathname);
    return response.body;
  }

  /**
   * Opens a tarball download as a stream: the caller reads the body, never held whole here.
   * Retries apply until the body starts. With `from`, only the bytes from there on are asked
   * for (`Range`); `offset` says where the body really starts (0 when the registry sent the
   * whole file instead) and `size` is the whole file's size when the registry tells it.
   */
  async tarballStream(url: string, options: { from?: number } = {}): Promise<TarballStream> {
    const target = new URL(url);
    const from = options.from ?? 0;
    const response = await this.#exchange(
      'GET',
      target,
      {
        idempotent: true,
        accept: 'application/octet-stream',
        ...(from > 0 ? { headers: { range: `bytes=${from}-` } } : {}),
      },
      (request) => this.#options.transport.stream(request),
      (failed) => drain(failed.body),
    );
    if (response.status === 206 && from > 0) {
      const range = /^bytes (\d+)-(\d+)\/(\d+|\*)$/.exec(response.headers['content-range'] ?? '');
      if (range && Number(range[1]) === from) {
        const total = range[3] === '*' ? undefined : Number(range[3]);
        return { offset: from, size: total, body: response.body };
      }
      await drain(response.body).catch(() => undefined);
      throw new RangeNotUsable();
    }
    if (response.status === 416 && from > 0) {
      await drain(response.body).catch(() => undefined);
      throw new RangeNotUsable();
    }
    if (response.status !== 200) {
      const body = await readLimited(response.body, ERROR_BODY_LIMIT);
      throw this.#statusError(httpError({ ...response, body }), 'tarball', target.pathname);
    }
    const length = Number(response.headers['content-length']);
    return { offset: 0, size: Number.isSafeInteger(length) && length >= 0 ? length : undefined, body: response.body };
  }

  /**
   * After a download's body failed part-way (a reset, a drop, a timeout): waits as the retry
   * policy says for attempt `attempt` and resolves true, or resolves false when it is not worth
   * another try (another kind of failure, or the tries are spent).
   */
  async waitToResume(attempt: number, err: unknown): Promise<boolean> {
    if (err instanceof ClientError || !isNetworkError(err)) return false;
    const policy = this.#options.retry ?? DEFAULT_RETRY;
    const wait = retryDelay(policy, attempt, { error: { code: errorCode(err) } }, true, this.#options.now());
    this.#options.debug(`✗ download cut off: ${errorCode(err) ?? (err as Error).message}`);
    if (wait === null) return false;
    this.#options.debug(`  resuming in ${wait} ms`);
    await this.#wait(wait);
    return true;
  }

  async #json<T>(method: string, pathname: string, options: CallOptions): Promise<T> {
    const response = await this.#send(method, registryEndpoint(this.registry, pathname), options);
    if (response.status < 200 || response.status >= 300) throw httpError(response);
    if (response.body.length === 0) return undefined as T;
    try {
      return JSON.parse(response.body.toString('utf8')) as T;
    } catch {
      throw new ClientError('INVALID_RESPONSE', { request: `${method} ${redactPath(pathname)}`, registry: this.registry });
    }
  }

  #send(method: string, url: URL, options: CallOptions): Promise<HttpResponse> {
    return this.#exchange(
      method,
      url,
      options,
      (request) => this.#options.transport.send(request),
      async () => undefined,
    );
  }

  /** One call with the retry policy; `discard` releases a response that is retried. */
  async #exchange<R extends HttpResponse | HttpStreamResponse>(
    method: string,
    url: URL,
    options: CallOptions,
    call: (request: HttpRequest) => Promise<R>,
    discard: (response: R) => Promise<void>,
  ): Promise<R> {
    const { userAgent, now, debug } = this.#options;
    const policy = this.#options.retry ?? DEFAULT_RETRY;
    const headers: Record<string, string> = {
      ...options.headers,
      accept: options.accept ?? 'application/json',
      'user-agent': userAgent,
    };
    const token = options.token === undefined ? this.#options.token : options.token;
    const scheme = options.token === undefined ? (this.#options.tokenScheme ?? 'Bearer') : 'Bearer';
    const lazy = options.token === undefined && this.#options.lazyAuth === true;
    // Never hand the registry's token to another host (a CDN, a redirect target).
    const authorize = () => {
      if (token && url.host.toLowerCase() === this.host && (!lazy || this.#challenged)) {
        headers.authorization = `${scheme} ${token}`;
      }
    };
    authorize();
    const otp = this.#options.oneTimePassword;
    const sendOtp = () => {
      if (otp?.code && url.host.toLowerCase() === this.host) headers[OTP_HEADER] = otp.code;
    };
    sendOtp();
    let otpAsked = 0;
    let body: string | undefined;
    if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] = 'application/json';
    }
    const streamed = options.streamedBody;
    if (streamed) {
      headers['content-type'] = streamed.contentType;
      headers['content-length'] = String(streamed.length);
    }
    const shown = `${method} ${url.origin}${redactPath(url.pathname)}${url.search}`;
    for (let attempt = 1; ; attempt++) {
      const started = now().getTime();
      debug(`→ ${shown}${attempt > 1 ? ` (attempt ${attempt})` : ''}`);
      let response: R;
      const ended = this.#options.activity?.(`Waiting for ${url.host}`);
      try {
        const payload = streamed ? streamed.open() : body;
        response = await call({ method, url, headers, ...(payload !== undefined ? { body: payload } : {}) });
      } catch (err) {
        ended?.();
        if (err instanceof ClientError) throw err;
        const wait = retryDelay(policy, attempt, { error: { code: errorCode(err) } }, options.idempotent, now());
        debug(`✗ ${shown}: ${errorCode(err) ?? (err as Error).message}`);
        if (wait === null) throw transportError(err, url.host);
        await this.#wait(wait);
        continue;
      }
      ended?.();
      debug(`← ${response.status} ${shown} (${now().getTime() - started} ms)`);
      if (response.status === 401 && lazy && token && !this.#challenged && url.host.toLowerCase() === this.host) {
        this.#challenged = true;
        authorize();
        debug('  the registry asks for authentication: sending the token');
        await discard(response).catch(() => undefined);
        continue;
      }
      if (asksForOtp(response) && otp && otpAsked < OTP_ATTEMPTS && url.host.toLowerCase() === this.host) {
        const code = (await otp.ask(headers[OTP_HEADER] !== undefined))?.trim();
        if (code) {
          otpAsked++;
          otp.code = code;
          sendOtp();
          debug('  the registry asks for a one-time password: sending the one given');
          await discard(response).catch(() => undefined);
          continue;
        }
        otpAsked = OTP_ATTEMPTS;
      }
      const wait =
        response.status >= 200 && response.status < 400
          ? null
          : retryDelay(
              policy,
              attempt,
              { status: response.status, retryAfter: response.headers['retry-after'] },
              options.idempotent,
              now(),
            );
      if (wait === null) return response;
      await discard(response).catch(() => undefined);
      debug(`  retrying in ${wait} ms`);
      await this.#wait(wait);
    }
  }

  /** TOKEN_REJECTED, naming the token (`the token in PKG_TOKEN`, `the token in <file>`). */
  #tokenRejected(givenToken: boolean): ClientError {
    const source = givenToken ? undefined : this.#options.tokenSource;
    // A name and password (upmconfig's `_auth`) are not revoked: they are wrong.
    const why =
      !givenToken && this.#options.tokenScheme === 'Basic'
        ? 'the name or the password is wrong'
        : 'it was revoked or has expired';
    return new ClientError('TOKEN_REJECTED', { source: source ?? 'the stored token', registry: this.registry, why });
  }

  async #wait(ms: number): Promise<void> {
    const ended = this.#options.activity?.(`Retrying in ${Math.ceil(ms / 1000)} s`);
    try {
      await this.#options.sleep(ms);
    } finally {
      ended?.();
    }
  }

  #statusError(
    err: unknown,
    call: 'login' | 'whoami' | 'logout' | 'search' | 'package' | 'tarball' | 'publish' | 'advisories' | 'tokens',
    subject?: string,
  ): unknown {
    if (!(err instanceof RegistryHttpError)) return err;
    if (err.status === 404) {
      if (call === 'package' && subject) {
        return new ClientError('PACKAGE_NOT_FOUND', { name: subject });
      }
      return new ClientError('ENDPOINT_NOT_FOUND', { registry: this.registry, endpoint: call });
    }
    if (err.status === 429) {
      const retry = err.headers['retry-after'];
      const details = err.details || 'the registry refuses more requests for now';
      return retry
        ? new ClientError('RATE_LIMITED', { details, seconds: retry })
        : new ClientError('RATE_LIMITED_NO_WAIT', { details });
    }
    if (err.status === 401 && /^otp\b/i.test(err.headers['www-authenticate'] ?? '')) {
      const details = err.details || 'this change needs a code from your authenticator app';
      return new ClientError(this.#options.oneTimePassword?.code ? 'OTP_REJECTED' : 'OTP_REQUIRED', {
        registry: this.registry,
        details,
      });
    }
    if (err.status === 401) {
      return this.authenticated ? this.#tokenRejected(false) : new ClientError('AUTH_REQUIRED', { registry: this.registry });
    }
    if (err.status === 403) return new ClientError('FORBIDDEN', { details: err.details || 'the registry refused the request' });
    return err.details
      ? new ClientError('REGISTRY_ERROR', { status: err.status, details: err.details })
      : new ClientError('REGISTRY_STATUS', { status: err.status });
  }
}

/** A token as `/-/npm/v1/tokens` lists it (npm's fields and the registry's own). */
export interface RegistryToken {
  /** The token's first characters. */
  token: string;
  key: string;
  name: string;
  readonly: boolean;
  cidr_whitelist: string[] | null;
  created: string;
  expires: string | null;
  packages: string[] | null;
  publish_only: boolean;
  automation: boolean;
  last_used: string | null;
  last_address: string | null;
}

interface TokenPage {
  objects: RegistryToken[];
  urls?: { next?: string | null };
}

/** What `pkg token create` asks for. */
export interface NewTokenRequest {
  password: string;
  name?: string;
  readonly?: boolean;
  publish_only?: boolean;
  automation?: boolean;
  cidr_whitelist?: string[];
  packages?: string[];
  expires?: number;
}

/** Most bytes of an error answer read from a streamed response. */
const ERROR_BODY_LIMIT = 64 * 1024;

async function readLimited(body: AsyncIterable<Uint8Array>, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    chunks.push(Buffer.from(chunk));
    size += chunk.length;
    if (size >= limit) break;
  }
  return Buffer.concat(chunks).subarray(0, limit);
}

async function drain(body: AsyncIterable<Uint8Array>): Promise<void> {
  for await (const _chunk of body) {
    // discarded: the request is sent again
  }
}

function isDocument(value: unknown): value is PackageDocument {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A cached document's text parsed; undefined when it is not a JSON object (a damaged entry: a miss). */
function parseDocument(text: string): PackageDocument | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return isDocument(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

function httpError(response: HttpResponse): RegistryHttpError {
  let code: string | undefined;
  let details = '';
  try {
    const parsed: unknown = JSON.parse(response.body.toString('utf8'));
    if (isErrorBody(parsed)) {
      code = parsed.code;
      details = parsed.details || parsed.error;
    } else if (typeof (parsed as { error?: unknown })?.error === 'string') {
      details = (parsed as { error: string }).error;
    }
  } catch {
    // not JSON: the status says enough
  }
  return new RegistryHttpError(response.status, code, details, response.headers);
}

/** The logout path carries a token: it never appears in traces or messages. */
export function redactPath(pathname: string): string {
  return pathname.replace(/(\/-\/user\/token\/)[^/?#]+/, '$1***');
}
