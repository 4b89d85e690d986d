import http from 'node:http';
import https from 'node:https';
import type { JsonResponse } from './http.js';
import { recordIssuedToken } from './issued-tokens.js';
import type { UntypedJson } from './untyped-json.js';

export interface HostRequestInit {
  method?: string;
  token?: string;
  body?: unknown;
  rawBody?: string | Buffer;
  headers?: Record<string, string>;
  /** CA to trust for https URLs. */
  ca?: Buffer;
}

/** A response with its raw bytes too (tarballs). */
export interface HostResponse<T = UntypedJson> extends JsonResponse<T> {
  bytes: Buffer;
}

/**
 * Like `request`, but sent to `url`'s address with another `Host` header (fetch does not let a
 * caller set Host): how tests reach tenant registries (`a.registry.test`) on 127.0.0.1.
 */
export function requestWithHost<T = UntypedJson>(
  url: string,
  host: string,
  init: HostRequestInit = {},
): Promise<HostResponse<T>> {
  const target = new URL(url);
  const headers: Record<string, string> = { host, ...init.headers };
  if (init.token) headers.authorization = `Bearer ${init.token}`;
  let body: string | Buffer | undefined = init.rawBody;
  if (body === undefined && init.body !== undefined) {
    body = JSON.stringify(init.body);
    headers['content-type'] ??= 'application/json';
  }
  if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body));
  const transport = target.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = transport.request(
      target,
      {
        method: init.method ?? 'GET',
        headers,
        agent: false,
        ...(init.ca ? { ca: init.ca, servername: host.split(':')[0] } : {}),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const bytes = Buffer.concat(chunks);
          const text = bytes.toString('utf8');
          let parsed: unknown = text;
          try {
            parsed = text.length ? JSON.parse(text) : undefined;
          } catch {
            // not JSON: keep the text
          }
          const responseHeaders = new Headers();
          for (const [name, value] of Object.entries(res.headers)) {
            if (value !== undefined) responseHeaders.set(name, Array.isArray(value) ? value.join(', ') : value);
          }
          recordIssuedToken(parsed);
          resolve({ status: res.statusCode ?? 0, body: parsed as T, headers: responseHeaders, text, bytes });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * A registry host as tests address it: `base` is the server's real URL, `host` the Host header
 * (`a.registry.test`, or the bare domain). `url(path)` is what to request, `origin` what the
 * server should put in the URLs it emits.
 */
export interface RegistryHost {
  host: string;
  request<T = UntypedJson>(path: string, init?: HostRequestInit): Promise<HostResponse<T>>;
  /** `http://<host>:<port>`: the registry's public URL as the server derives it from Host. */
  origin: string;
}

export function registryHost(baseUrl: string, hostName: string): RegistryHost {
  const port = new URL(baseUrl).port;
  // A host name that already names its port keeps it (a Host of `h:1:1` is refused with 400).
  const host = port && !/:\d+$/.test(hostName) ? `${hostName}:${port}` : hostName;
  return {
    host,
    origin: `${new URL(baseUrl).protocol}//${host}`,
    request: (path, init) => requestWithHost(`${baseUrl}${path}`, host, init),
  };
}

/** Logs in on a registry host and returns the token (creating the account where sign-up is open). */
export async function loginOn(
  registry: RegistryHost,
  name: string,
  password = 'secret-password',
  email = `${name}@example.com`,
): Promise<string> {
  const res = await registry.request<{ token: string }>(`/-/user/org.couchdb.user:${encodeURIComponent(name)}`, {
    method: 'PUT',
    body: { _id: `org.couchdb.user:${name}`, name, password, email, type: 'user', roles: [], date: new Date().toISOString() },
  });
  if (res.status !== 201) throw new Error(`login of ${name} on ${registry.host} failed: ${res.status} ${res.text}`);
  return res.body.token;
}
