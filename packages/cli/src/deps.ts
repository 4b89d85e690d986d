import type * as fsp from 'node:fs/promises';

/**
 * Every piece of real IO the client uses, constructed only in main.ts (the composition root)
 * and handed to commands as one object. Tests build their own.
 */
export interface Deps {
  /** Environment variables (read-only view). */
  env: Readonly<Record<string, string | undefined>>;
  platform: NodeJS.Platform;
  homedir: string;
  /** The system's temporary directory; `update` puts its manifest backups there. */
  tmpdir: string;
  cwd: string;
  /** This process's id; lock files record it. */
  pid: number;
  /** Version of the client, shown by `pkg --version` and sent as User-Agent. */
  version: string;
  stdin: InputStream;
  stdout: OutputStream;
  stderr: OutputStream;
  fs: FileSystem;
  now(): Date;
  sleep(ms: number): Promise<void>;
  /** Opens the HTTP transport (undici, loaded on first use so `pkg --help` stays fast). */
  createTransport(options: TransportOptions): Promise<HttpTransport>;
  /** Loads the OS keychain binding (a native module, loaded on first use). */
  loadKeyring(): Promise<KeyringBinding>;
  /**
   * Runs a command line in the platform's shell (the `checkoutCommand` setting) in `cwd` and
   * waits for it; its output is handed back, not shown.
   */
  runShell(command: string, cwd: string): Promise<ShellOutcome>;
}

export interface ShellOutcome {
  /** The exit status; null when a signal ended it (then `signal` names it). */
  status: number | null;
  signal: string | null;
  /** stdout and stderr, interleaved as they came. */
  output: string;
}

/** The subset of `node:fs/promises` the client uses. */
export type FileSystem = Pick<
  typeof fsp,
  | 'readFile'
  | 'writeFile'
  | 'appendFile'
  | 'mkdir'
  | 'mkdtemp'
  | 'rename'
  | 'rm'
  | 'unlink'
  | 'stat'
  | 'lstat'
  | 'open'
  | 'chmod'
  | 'chown'
  | 'readdir'
  | 'copyFile'
  | 'cp'
  | 'utimes'
>;

export interface OutputStream {
  write(chunk: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

export interface InputStream {
  isTTY?: boolean;
  setRawMode?(mode: boolean): unknown;
  setEncoding(encoding: BufferEncoding): unknown;
  on(event: 'data', listener: (chunk: string | Buffer) => void): unknown;
  on(event: 'end' | 'close', listener: () => void): unknown;
  on(event: 'error', listener: (err: Error) => void): unknown;
  removeListener(event: string, listener: (...args: never[]) => void): unknown;
  pause(): unknown;
  resume(): unknown;
}

export interface TransportOptions {
  /** Connect, headers and idle-body timeout, in milliseconds. */
  timeoutMs: number;
}

/**
 * One HTTP exchange; the response is fully buffered. A streamed body (an upload of hundreds of
 * MB) is read as it is sent; its length must be known and is given in `content-length`.
 */
export interface HttpRequest {
  method: string;
  url: URL;
  headers: Record<string, string>;
  body?: string | Buffer | AsyncIterable<Uint8Array>;
}

export interface HttpResponse {
  status: number;
  headers: Record<string, string | undefined>;
  body: Buffer;
}

/**
 * A response whose body is read as it arrives (tarball downloads of any size). Read the body to
 * its end, or leave the loop early (which releases the connection).
 */
export interface HttpStreamResponse {
  status: number;
  headers: Record<string, string | undefined>;
  body: AsyncIterable<Uint8Array>;
}

/**
 * Sends requests. Implementations enforce the transport rules (HTTPS only except loopback,
 * proxies from the environment, timeouts) and reject with errors carrying a `code`
 * (`ECONNREFUSED`, `ENOTFOUND`, `UND_ERR_HEADERS_TIMEOUT`, TLS codes, ...).
 */
export interface HttpTransport {
  send(request: HttpRequest): Promise<HttpResponse>;
  /** As `send`, with the response body streamed; errors while it streams carry the same codes. */
  stream(request: HttpRequest): Promise<HttpStreamResponse>;
  close(): Promise<void>;
}

/** The shape of `@napi-rs/keyring` the keychain store needs; tests fake exactly this. */
export interface KeyringBinding {
  AsyncEntry: new (
    service: string,
    account: string,
    options?: { linux?: { store?: 'secret-service' | 'keyutils' } },
  ) => {
    getPassword(): Promise<string | null | undefined>;
    setPassword(password: string): Promise<void>;
    deleteCredential(): Promise<boolean>;
  };
}
