import dns, { type LookupAddress, type LookupOptions } from 'node:dns';
import { EnvHttpProxyAgent, request } from 'undici';
import type { HttpRequest, HttpResponse, HttpStreamResponse, HttpTransport, TransportOptions } from '../deps.js';
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
  const connect = { lookup: loopbackAwareLookup, timeout: options.timeoutMs, rejectUnauthorized: true };
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

  const open = async (req: HttpRequest) => {
    assertSecureUrl(req.url);
    const response = await request(req.url, {
      method: req.method as never,
      headers: req.headers,
      body: req.body,
      dispatcher,
    } as Parameters<typeof request>[1]);
    const headers: Record<string, string | undefined> = {};
    for (const [name, value] of Object.entries(response.headers)) {
      headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
    }
    return { status: response.statusCode, headers, body: response.body };
  };

  return {
    async send(req: HttpRequest): Promise<HttpResponse> {
      const response = await open(req);
      return { ...response, body: Buffer.from(await response.body.arrayBuffer()) };
    },
    // undici's body is a Readable: iterating it applies backpressure to the socket, and leaving
    // the loop early destroys it, which frees the connection.
    stream: (req: HttpRequest): Promise<HttpStreamResponse> => open(req),
    close: () => dispatcher.close(),
  };
}
