import {
  createServer,
  request as httpRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import type { Socket } from 'node:net';

/** What the proxy does to the next requests. */
export type Fault =
  /** Forward unchanged. */
  | { kind: 'pass' }
  /** Forward after `ms` milliseconds. */
  | { kind: 'delay'; ms: number }
  /** Close the connection without an answer. */
  | { kind: 'drop' }
  /** Answer `status` without asking the target. */
  | { kind: 'status'; status: number }
  /** Forward, but flip a byte of every tarball body (`application/octet-stream`). */
  | { kind: 'tamper' }
  /** Forward, but cut every tarball body off after half its bytes (headers announce it whole). */
  | { kind: 'cut' }
  /** Forward tarball bodies as they stream, but close each connection after `bytes` bytes of its body. */
  | { kind: 'cut-after'; bytes: number }
  /**
   * Forward tarball bodies as they stream, then hold each after `bytes` bytes of its body: the
   * connection stays open, nothing more comes, until the target closes it (a killed server).
   */
  | { kind: 'stall-after'; bytes: number }
  /**
   * Forward tarball bodies as they stream, but hold the rest of each after `bytes` bytes of its
   * body until `resume()` (a slow upstream, made deterministic).
   */
  | { kind: 'pause-after'; bytes: number };

export interface FaultProxy {
  /** `http://127.0.0.1:<port>`: use it as the upstream's URL. */
  url: string;
  /** Requests received, in order: method, path and headers. */
  requests: { method: string; url: string; headers: IncomingHttpHeaders }[];
  /** How many requests asked for exactly this path. */
  count(path: string): number;
  /** Resolves once a tarball body has been held by `stall-after` or `pause-after`. */
  stalled(): Promise<void>;
  /** Sends on what `pause-after` held, and the rest of those bodies as they come. */
  resume(): void;
  /** Changes what happens to the requests from now on. */
  set(fault: Fault): void;
  close(): Promise<void>;
}

/**
 * A reverse proxy in front of `target` (a test registry) that injects faults: delay, dropped
 * connections, 5xx answers, tampered tarballs. It keeps the Host header, so the target's
 * tarball URLs name the proxy, as they would name a public host behind a real proxy.
 */
export async function startFaultProxy(target: string): Promise<FaultProxy> {
  const to = new URL(target);
  let fault: Fault = { kind: 'pass' };
  const requests: FaultProxy['requests'] = [];
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();

  let onStall: (() => void)[] = [];
  let stalledOnce = false;

  /** Bodies held by `pause-after`, each waiting for `resume`. */
  let paused: (() => void)[] = [];

  /** Streams a tarball answer, holding the rest of it after `limit` body bytes until `resume`. */
  const pausing = (answer: IncomingMessage, res: ServerResponse, limit: number) => {
    res.writeHead(answer.statusCode ?? 502, answer.headers);
    let sent = 0;
    let holding: Buffer[] | undefined;
    let ended = false;
    const release = () => {
      if (holding === undefined) return;
      for (const chunk of holding) res.write(chunk);
      holding = undefined;
      if (ended) res.end();
    };
    answer.on('data', (chunk: Buffer) => {
      if (holding !== undefined) {
        holding.push(chunk);
        return;
      }
      const room = limit - sent;
      if (chunk.length < room || sent >= limit) {
        sent += chunk.length;
        res.write(chunk);
        return;
      }
      sent = limit;
      holding = [chunk.subarray(room)];
      paused.push(release);
      res.write(chunk.subarray(0, room), () => {
        stalledOnce = true;
        for (const resolve of onStall) resolve();
        onStall = [];
      });
    });
    answer.on('end', () => {
      ended = true;
      if (holding === undefined) res.end();
    });
    answer.on('error', () => res.destroy());
  };

  /** Streams a tarball answer, ending it after `limit` body bytes: cut (closed) or stalled (held). */
  const limited = (answer: IncomingMessage, res: ServerResponse, limit: number, stall: boolean) => {
    res.writeHead(answer.statusCode ?? 502, answer.headers);
    let sent = 0;
    let held = false;
    answer.on('data', (chunk: Buffer) => {
      if (held) return; // read and dropped, so that the target's going away is seen
      const room = limit - sent;
      const piece = chunk.length > room ? chunk.subarray(0, room) : chunk;
      sent += piece.length;
      if (sent < limit) {
        res.write(piece);
        return;
      }
      held = true;
      if (!stall) {
        // Once what was written has left, the connection goes, as a network drop would take it.
        // The target's answer goes only then: its closing destroys the client's connection (below),
        // which would drop what a slow client has not yet taken from this proxy's buffers.
        res.write(piece, () => {
          res.destroy();
          answer.destroy();
        });
        return;
      }
      res.write(piece, () => {
        stalledOnce = true;
        for (const resolve of onStall) resolve();
        onStall = [];
      });
    });
    answer.on('end', () => {
      if (!held) res.end();
    });
    // The target went away (killed): the client's connection goes with it, as it would, once the
    // bytes the target sent before have left (on a real network they are on their way already).
    answer.socket.on('close', () => {
      if (!res.writableEnded && !res.destroyed) res.write(Buffer.alloc(0), () => res.destroy());
    });
    answer.on('error', () => res.destroy());
  };

  const forward = (
    req: IncomingMessage,
    res: ServerResponse,
    change: 'tamper' | 'cut' | { bytes: number; stall: boolean } | { pauseAfter: number } | undefined,
  ) => {
    const upstream = httpRequest(
      { host: to.hostname, port: to.port, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        const isTarball = String(answer.headers['content-type'] ?? '').startsWith('application/octet-stream');
        if (change === undefined || !isTarball) {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
          return;
        }
        if (typeof change === 'object' && 'pauseAfter' in change) {
          pausing(answer, res, change.pauseAfter);
          return;
        }
        if (typeof change === 'object') {
          limited(answer, res, change.bytes, change.stall);
          return;
        }
        const chunks: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => chunks.push(chunk));
        answer.on('end', () => {
          const body = Buffer.concat(chunks);
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          if (change === 'cut') {
            res.write(body.subarray(0, Math.floor(body.length / 2)), () => res.destroy());
            return;
          }
          if (body.length > 0) body[body.length - 1] = body[body.length - 1]! ^ 0xff;
          res.end(body);
        });
      },
    );
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  };

  const server = createServer((req, res) => {
    requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
    const now = fault;
    switch (now.kind) {
      case 'pass':
        return forward(req, res, undefined);
      case 'tamper':
      case 'cut':
        return forward(req, res, now.kind);
      case 'cut-after':
        return forward(req, res, { bytes: now.bytes, stall: false });
      case 'stall-after':
        return forward(req, res, { bytes: now.bytes, stall: true });
      case 'pause-after':
        return forward(req, res, { pauseAfter: now.bytes });
      case 'delay': {
        const timer = setTimeout(() => {
          timers.delete(timer);
          forward(req, res, undefined);
        }, now.ms);
        timers.add(timer);
        return;
      }
      case 'drop':
        req.socket.destroy();
        return;
      case 'status':
        res.writeHead(now.status, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'injected' }));
        return;
    }
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    count: (path) => requests.filter((r) => r.url === path).length,
    stalled: () => (stalledOnce ? Promise.resolve() : new Promise<void>((resolve) => onStall.push(resolve))),
    resume() {
      const held = paused;
      paused = [];
      for (const release of held) release();
    },
    set(next) {
      fault = next;
      stalledOnce = false;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const timer of timers) clearTimeout(timer);
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
