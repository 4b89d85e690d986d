import http from 'node:http';
import net from 'node:net';
import type { UntypedJson } from '../untyped-json.js';

/** What came back for one request: a status, or why none came. */
export interface Outcome {
  status: number | undefined;
  /** No status: the connection failed, was reset before an answer, or timed out. */
  failure?: string;
  body: Buffer;
  ms: number;
}

export interface RawRequest {
  method: string;
  /** Sent as is on the request line: may hold anything a fuzzer wants to try. */
  target: string;
  headers: [string, string][];
  body?: Buffer;
  /** The Host header; the URL's host and port unless set. */
  host?: string;
}

/**
 * Sends bytes over a fresh socket, exactly as given (node:http would refuse or fix odd request
 * lines), and reads the status line of the answer. For the fuzzer.
 */
export function sendRaw(url: string, request: RawRequest, timeoutMs = 10_000): Promise<Outcome> {
  const { hostname, port } = new URL(url);
  const started = performance.now();
  const body = request.body ?? Buffer.alloc(0);
  const head = [
    `${request.method} ${request.target} HTTP/1.1`,
    `Host: ${request.host ?? `${hostname}:${port}`}`,
    'Connection: close',
  ];
  for (const [name, value] of request.headers) head.push(`${name}: ${value}`);
  if (!request.headers.some(([name]) => name.toLowerCase() === 'content-length' || name.toLowerCase() === 'transfer-encoding')) {
    head.push(`Content-Length: ${body.length}`);
  }
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let done = false;
    const finish = (failure?: string) => {
      if (done) return;
      done = true;
      socket.destroy();
      const bytes = Buffer.concat(chunks);
      const status = /^HTTP\/1\.[01] (\d{3})/.exec(bytes.subarray(0, 20).toString('latin1'))?.[1];
      resolve({
        status: status === undefined ? undefined : Number(status),
        ...(status === undefined ? { failure: failure ?? 'closed without an answer' } : {}),
        body: bytes.subarray(bytes.indexOf('\r\n\r\n') + 4),
        ms: performance.now() - started,
      });
    };
    const socket = net.connect({ host: hostname, port: Number(port) }, () => {
      socket.write(Buffer.concat([Buffer.from(`${head.join('\r\n')}\r\n\r\n`, 'utf8'), body]));
    });
    socket.setTimeout(timeoutMs, () => finish(`no answer within ${timeoutMs} ms`));
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('end', () => finish());
    socket.on('close', () => finish());
    // A reset after the answer arrived is the server closing a connection it refused to read.
    socket.on('error', (err: NodeJS.ErrnoException) => finish(err.code ?? err.message));
  });
}

/** A keep-alive client for steady load: JSON or bytes in, status and body out. */
export class LoadClient {
  // FIFO: every pooled connection stays in use, so none idles toward the server's keep-alive
  // timeout, where a reuse can cross the server's close (an ECONNRESET of the client's making).
  readonly #agent = new http.Agent({ keepAlive: true, maxSockets: 32, scheduling: 'fifo' });
  readonly #base: URL;

  constructor(baseUrl: string) {
    this.#base = new URL(baseUrl);
  }

  request(
    method: string,
    path: string,
    options: { token?: string; json?: unknown; headers?: Record<string, string>; timeoutMs?: number } = {},
  ): Promise<Outcome> {
    const started = performance.now();
    const headers: Record<string, string> = { ...options.headers };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    let body: Buffer | undefined;
    if (options.json !== undefined) {
      body = Buffer.from(JSON.stringify(options.json));
      headers['content-type'] = 'application/json';
      headers['content-length'] = String(body.length);
    }
    return new Promise((resolve) => {
      const req = http.request(
        { host: this.#base.hostname, port: this.#base.port, method, path, headers, agent: this.#agent },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => resolve({ status: res.statusCode, body: Buffer.concat(chunks), ms: performance.now() - started }));
          res.on('error', (err: NodeJS.ErrnoException) =>
            resolve({
              status: undefined,
              failure: err.code ?? err.message,
              body: Buffer.alloc(0),
              ms: performance.now() - started,
            }),
          );
        },
      );
      req.setTimeout(options.timeoutMs ?? 30_000, () => req.destroy(new Error('timeout')));
      req.on('error', (err: NodeJS.ErrnoException) =>
        resolve({ status: undefined, failure: err.code ?? err.message, body: Buffer.alloc(0), ms: performance.now() - started }),
      );
      req.end(body);
    });
  }

  close(): void {
    this.#agent.destroy();
  }
}

export function json<T = UntypedJson>(outcome: Outcome): T {
  return JSON.parse(outcome.body.toString('utf8')) as T;
}
