import { promisify } from 'node:util';
import { brotliDecompress, gunzip } from 'node:zlib';
import type { Dispatcher } from 'undici';

const gunzipAsync = promisify(gunzip);
const brotliAsync = promisify(brotliDecompress);

/** What an upstream answered, sorted by what the cache does with it. */
export type UpstreamResult =
  /** `length`: the Content-Length the upstream announced (a HEAD's only answer), when valid. */
  | { kind: 'ok'; etag: string | null; body: Buffer; length: number | undefined }
  | { kind: 'not-modified' }
  | { kind: 'not-found' }
  /** 401/403: the upstream refuses our uplink credentials. */
  | { kind: 'refused'; status: number }
  /** Unreachable: timeout, connection error, 5xx, 429. Counts against the uplink's circuit. */
  | { kind: 'down'; reason: string }
  /** Reachable but unusable: another status, a body over the limit. */
  | { kind: 'bad'; reason: string };

export interface UpstreamRequest {
  url: string;
  /** GET unless said; a HEAD's `ok` has an empty body; a POST sends `json`. */
  method?: 'GET' | 'HEAD' | 'POST';
  /** The JSON body of a POST (npm's bulk advisory request). */
  json?: unknown;
  /** Milliseconds until the response headers, and between two chunks of the body. */
  timeoutMs: number;
  authorization?: string | undefined;
  accept?: string;
  etag?: string | null | undefined;
  /** Largest body accepted, in bytes (after decompression). */
  maxBytes: number;
  /** Ask for gzip or brotli (JSON: a large package document is a tenth of its size compressed). */
  compressed?: boolean;
}

/** A body being received: iterate it once, or destroy it. */
export interface UpstreamBody extends AsyncIterable<Buffer> {
  destroy(): void;
}

/** What an upstream answered to a streamed request: the body not read yet when it is a 200. */
export type UpstreamStream =
  { kind: 'ok'; body: UpstreamBody; length: number | undefined } | Exclude<UpstreamResult, { kind: 'ok' }>;

/** The one way the registry talks to upstream registries (tests may pass another). */
export interface UpstreamClient {
  get(request: UpstreamRequest): Promise<UpstreamResult>;
  /**
   * Like get, but a 200's body is handed over as it arrives (tarballs: memory stays flat at any
   * size). Reading it throws when the upstream cuts it off or stalls past `timeoutMs`.
   */
  stream(request: Omit<UpstreamRequest, 'compressed' | 'maxBytes'>): Promise<UpstreamStream>;
  close(): Promise<void>;
}

type Undici = typeof import('undici');
type Response = Awaited<ReturnType<Undici['request']>>;

/**
 * Requests over undici with one connection pool per upstream origin; honours HTTP_PROXY,
 * HTTPS_PROXY and NO_PROXY like the `pkg` client. Never throws: every failure is a result.
 * undici is loaded on the first upstream request: a registry without uplinks never pays its
 * memory (architecture.md, "Memory is bounded").
 */
export class HttpUpstreamClient implements UpstreamClient {
  #undici: Promise<{ request: Undici['request']; dispatcher: Dispatcher }> | undefined;

  async get(upstream: UpstreamRequest): Promise<UpstreamResult> {
    const sent = await this.#send(upstream);
    if (!('response' in sent)) return sent;
    const { response, length, etag } = sent;
    if (upstream.method === 'HEAD') {
      await response.body.dump().catch(() => undefined);
      return { kind: 'ok', etag, body: Buffer.alloc(0), length };
    }
    let raw: Buffer | undefined;
    try {
      raw = await readLimited(response.body, upstream.maxBytes);
    } catch (err) {
      return { kind: 'down', reason: describe(err) };
    }
    const body = raw && (await decoded(raw, response.headers['content-encoding'], upstream.maxBytes));
    if (body === undefined) return { kind: 'bad', reason: `response over ${upstream.maxBytes} bytes` };
    if (body === null) return { kind: 'bad', reason: 'answered a body it could not decompress' };
    return { kind: 'ok', etag, body, length };
  }

  async stream(upstream: Omit<UpstreamRequest, 'compressed' | 'maxBytes'>): Promise<UpstreamStream> {
    const sent = await this.#send(upstream);
    if (!('response' in sent)) return sent;
    const { response, length } = sent;
    const coding = response.headers['content-encoding'];
    if (coding !== undefined && coding !== 'identity') {
      // Not asked for: bytes in a coding would not match the integrity anyway.
      response.body.destroy();
      return { kind: 'bad', reason: `answered a body in a coding it was not asked for (${String(coding)})` };
    }
    return { kind: 'ok', body: response.body, length };
  }

  /** The response of a 200 (its body unread), or what any other answer or failure means. */
  async #send(
    upstream: Omit<UpstreamRequest, 'maxBytes'>,
  ): Promise<{ response: Response; length: number | undefined; etag: string | null } | Exclude<UpstreamResult, { kind: 'ok' }>> {
    let undici: { request: Undici['request']; dispatcher: Dispatcher };
    try {
      undici = await (this.#undici ??= import('undici').then(({ request, EnvHttpProxyAgent }) => ({
        request,
        dispatcher: new EnvHttpProxyAgent({ connections: 32, keepAliveTimeout: 10_000 }),
      })));
    } catch (err) {
      // A proxy variable undici cannot parse: the upstream cannot be reached from here.
      this.#undici = undefined;
      return { kind: 'down', reason: describe(err) };
    }
    const { request, dispatcher } = undici;
    const headers: Record<string, string> = {
      accept: upstream.accept ?? 'application/json',
      'user-agent': 'pkg-registry (uplink)',
    };
    if (upstream.authorization) headers.authorization = upstream.authorization;
    if (upstream.etag) headers['if-none-match'] = upstream.etag;
    if (upstream.compressed) headers['accept-encoding'] = 'gzip, br';
    const body = upstream.json === undefined ? undefined : JSON.stringify(upstream.json);
    if (body !== undefined) headers['content-type'] = 'application/json';
    // headersTimeout does not cover connecting (undici's own connect timeout is 10 s): one timer does.
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), upstream.timeoutMs);
    try {
      const response = await request(upstream.url, {
        method: upstream.method ?? 'GET',
        headers,
        ...(body !== undefined ? { body } : {}),
        dispatcher,
        signal: controller.signal,
        headersTimeout: upstream.timeoutMs,
        bodyTimeout: upstream.timeoutMs,
      });
      clearTimeout(timer);
      const status = response.statusCode;
      if (status === 200) {
        // A body given up on (over the limit, not wanted) is destroyed, which emits an abort
        // error nobody else listens for; readers still see their own errors.
        response.body.on('error', () => undefined);
        const length = contentLength(response.headers['content-length']);
        const etag = typeof response.headers.etag === 'string' ? response.headers.etag : null;
        return { response, length, etag };
      }
      await response.body.dump().catch(() => undefined);
      if (status === 304) return { kind: 'not-modified' };
      if (status === 404) return { kind: 'not-found' };
      if (status === 401 || status === 403) return { kind: 'refused', status };
      if (status >= 500 || status === 429 || status === 408) return { kind: 'down', reason: `answered ${status}` };
      return { kind: 'bad', reason: `answered ${status}` };
    } catch (err) {
      return { kind: 'down', reason: controller.signal.aborted ? `no answer within ${upstream.timeoutMs} ms` : describe(err) };
    } finally {
      clearTimeout(timer);
    }
  }

  async close(): Promise<void> {
    const undici = await this.#undici?.catch(() => undefined);
    await undici?.dispatcher.close();
  }
}

function contentLength(value: string | string[] | undefined): number | undefined {
  return typeof value === 'string' && /^\d{1,15}$/.test(value) ? Number(value) : undefined;
}

async function readLimited(body: AsyncIterable<Buffer> & { destroy(): void }, maxBytes: number): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > maxBytes) {
      body.destroy();
      return undefined;
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size);
}

/** The body without its content coding; undefined when it is over the limit, null when it is not what it says. */
async function decoded(
  body: Buffer,
  coding: string | string[] | undefined,
  maxBytes: number,
): Promise<Buffer | undefined | null> {
  const name = typeof coding === 'string' ? coding.trim().toLowerCase() : '';
  if (name === '' || name === 'identity') return body;
  try {
    if (name === 'gzip' || name === 'x-gzip') return await gunzipAsync(body, { maxOutputLength: maxBytes });
    if (name === 'br') return await brotliAsync(body, { maxOutputLength: maxBytes });
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE' ? undefined : null;
  }
  return null;
}

/** A short reason: an error code, never a URL with credentials. */
function describe(err: unknown): string {
  const code = (err as { code?: unknown })?.code;
  const cause = (err as { cause?: { code?: unknown } })?.cause?.code;
  if (typeof code === 'string' && code !== 'UND_ERR_SOCKET') return code;
  if (typeof cause === 'string') return cause;
  return typeof code === 'string' ? code : 'connection failed';
}
