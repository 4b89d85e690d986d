import dns, { type LookupAddress, type LookupOptions } from 'node:dns';
import type { IncomingHttpHeaders } from 'node:http';
import { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
// The modules used, not undici's index, which loads every dispatcher, fetch, WebSocket and the
// mocks. The index also gives every dispatcher its API methods (the proxy agent tunnels with
// `connect`), so that is done here as the index does it.
import api from 'undici/lib/api/index.js';
import DispatcherBase from 'undici/lib/dispatcher/dispatcher.js';
import EnvHttpProxyAgent from 'undici/lib/dispatcher/env-http-proxy-agent.js';

Object.assign(DispatcherBase.prototype, api);
import type { HttpRequest, HttpResponse, HttpStreamResponse, HttpTransport, TransportOptions } from '../deps.js';
import { BodyQueue } from './body-queue.js';
import { specialUseAddress } from './loopback.js';
import { assertSecureUrl } from './registry-url.js';

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * Resolves `localhost` and `*.localhost` to 127.0.0.1 without asking DNS (many resolvers do
 * not know `a.localhost`), answers `.invalid` with "not found" at once, and asks the system
 * resolver for everything else.
 */
export function loopbackAwareLookup(hostname: string, options: LookupOptions, callback: LookupCallback): void {
  const special = specialUseAddress(hostname);
  if (special === 'nxdomain') {
    const err: NodeJS.ErrnoException = new Error(`getaddrinfo ENOTFOUND ${hostname}`);
    err.code = 'ENOTFOUND';
    process.nextTick(callback, err, '', 0);
    return;
  }
  if (special) {
    if (options.all) process.nextTick(callback, null, [special]);
    else process.nextTick(callback, null, special.address, special.family);
    return;
  }
  dns.lookup(hostname, options, callback as never);
}

/**
 * The real transport: undici with `HTTP_PROXY` / `HTTPS_PROXY` / `NO_PROXY` honoured
 * (EnvHttpProxyAgent; proxied requests tunnel through CONNECT), certificates verified
 * against Node's store plus `NODE_EXTRA_CA_CERTS`, and the timeout applied to connecting,
 * waiting for headers and every pause in the body.
 */
export function createUndiciTransport(
  env: Readonly<Record<string, string | undefined>>,
  options: TransportOptions,
): HttpTransport {
  // No TCP keep-alive: the timeouts below find a silent registry sooner, and Wine (the Windows pkg
  // run on Linux or macOS, as CrossOver does) fails every connect that sets it before connecting.
  const connect = { lookup: loopbackAwareLookup, timeout: options.timeoutMs, rejectUnauthorized: true, keepAlive: false };
  const dispatcher = new EnvHttpProxyAgent({
    httpProxy: env.http_proxy ?? env.HTTP_PROXY,
    httpsProxy: env.https_proxy ?? env.HTTPS_PROXY,
    noProxy: env.no_proxy ?? env.NO_PROXY ?? '',
    connect,
    proxyTls: connect,
    requestTls: { timeout: options.timeoutMs, rejectUnauthorized: true },
    headersTimeout: options.timeoutMs,
    bodyTimeout: options.timeoutMs,
  });

  return {
    async send(req: HttpRequest): Promise<HttpResponse> {
      assertSecureUrl(req.url);
      const response = await streamed(dispatcher, req);
      const chunks: Uint8Array[] = [];
      for await (const chunk of response.body) chunks.push(chunk);
      return { ...response, body: Buffer.concat(chunks) };
    },
    // Downloads read every byte that arrived, also when the connection then breaks (body-queue.ts).
    stream: (req: HttpRequest): Promise<HttpStreamResponse> => {
      assertSecureUrl(req.url);
      return streamed(dispatcher, req);
    },
    close: () => dispatcher.close(),
  };
}

function flatHeaders(raw: IncomingHttpHeaders): Record<string, string | undefined> {
  const headers: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(raw)) {
    headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}

/** One request through undici's dispatcher, its body handed over as a BodyQueue. */
function streamed(dispatcher: Dispatcher, req: HttpRequest): Promise<HttpStreamResponse> {
  return new Promise((resolve, reject) => {
    let body: BodyQueue | null = null;
    const handler: Dispatcher.DispatchHandler = {
      // Its presence tells undici that this handler speaks the controller API.
      onRequestStart() {},
      onResponseStart(controller, statusCode, headers) {
        // 1xx answers are interim: the real one follows.
        if (statusCode < 200) return;
        body = new BodyQueue(controller);
        resolve({ status: statusCode, headers: flatHeaders(headers), body });
      },
      onResponseData(_controller, chunk) {
        body?.push(chunk);
      },
      onResponseEnd() {
        body?.end();
      },
      onResponseError(_controller, error) {
        if (body) body.fail(error);
        else reject(error);
      },
    };
    const options: Dispatcher.DispatchOptions = {
      origin: req.url.origin,
      path: `${req.url.pathname}${req.url.search}`,
      method: req.method,
      headers: req.headers,
      body: typeof req.body === 'string' || Buffer.isBuffer(req.body) || !req.body ? (req.body ?? null) : Readable.from(req.body),
    };
    try {
      dispatcher.dispatch(options, handler);
    } catch (err) {
      reject(err instanceof Error ? err : new Error(String(err)));
    }
  });
}
