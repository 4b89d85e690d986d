import { recordIssuedToken } from './issued-tokens.js';
import type { UntypedJson } from './untyped-json.js';

/** Small fetch wrappers for tests: JSON in, status + parsed body + headers out. */
export interface JsonResponse<T = UntypedJson> {
  status: number;
  body: T;
  headers: Headers;
  text: string;
}

export async function request<T = UntypedJson>(
  url: string,
  init: { method?: string; token?: string; body?: unknown; headers?: Record<string, string>; rawBody?: string | Buffer } = {},
): Promise<JsonResponse<T>> {
  const headers: Record<string, string> = { ...init.headers };
  if (init.token) headers.authorization = `Bearer ${init.token}`;
  let body: string | Buffer | undefined;
  if (init.rawBody !== undefined) body = init.rawBody;
  else if (init.body !== undefined) {
    body = JSON.stringify(init.body);
    headers['content-type'] ??= 'application/json';
  }
  // fetch's types take bytes over an ArrayBuffer only (a Buffer may view a SharedArrayBuffer): a copy.
  const sent = typeof body === 'string' || body === undefined ? body : new Uint8Array(body);
  const response = await fetch(url, { method: init.method ?? 'GET', headers, body: sent });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = text.length ? JSON.parse(text) : undefined;
  } catch {
    // not JSON: keep the text
  }
  recordIssuedToken(parsed);
  return { status: response.status, body: parsed as T, headers: response.headers, text };
}

/** Logs in (creating the account on an open registry) and returns the token. */
export async function loginUser(
  baseUrl: string,
  name: string,
  password = 'secret-password',
  email = `${name}@example.com`,
): Promise<string> {
  const res = await request<{ token: string }>(`${baseUrl}/-/user/org.couchdb.user:${encodeURIComponent(name)}`, {
    method: 'PUT',
    body: { _id: `org.couchdb.user:${name}`, name, password, email, type: 'user', roles: [], date: new Date().toISOString() },
  });
  if (res.status !== 201) throw new Error(`login of ${name} failed: ${res.status} ${res.text}`);
  return res.body.token;
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/**
 * A request over node:http that neither adds headers nor decodes the body (fetch adds
 * Accept-Encoding and decompresses): for tests of compression and conditional requests.
 */
export async function rawRequest(
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: Buffer | string } = {},
): Promise<RawResponse> {
  const { request: httpRequest } = await import('node:http');
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: init.method ?? 'GET', headers: init.headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(init.body);
  });
}
