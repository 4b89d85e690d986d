import { createServer, type Server } from 'node:http';
import net from 'node:net';

export interface TestProxy {
  /** `http://127.0.0.1:<port>`, for HTTP_PROXY / HTTPS_PROXY. */
  url: string;
  /** Every `CONNECT host:port` the proxy tunnelled, in order. */
  tunnels: string[];
  close(): Promise<void>;
}

/**
 * A real HTTP proxy that tunnels with CONNECT (what clients use for https://, and undici for
 * every proxied request), recording each tunnel so tests can prove traffic went through it.
 * `*.localhost` targets are dialled on 127.0.0.1, the way the client resolves them.
 */
export async function startConnectProxy(): Promise<TestProxy> {
  const tunnels: string[] = [];
  const sockets = new Set<net.Socket>();
  const server: Server = createServer((_req, res) => {
    res.writeHead(405, { 'content-type': 'text/plain' }).end('only CONNECT is supported');
  });
  server.on('connect', (req, client: net.Socket, head: Buffer) => {
    const target = req.url ?? '';
    const match = /^(.+):(\d+)$/.exec(target);
    if (!match) {
      client.end('HTTP/1.1 400 Bad Request\r\n\r\n');
      return;
    }
    tunnels.push(target);
    const hostname = match[1]!.replace(/^\[|\]$/g, '');
    const host = hostname === 'localhost' || hostname.endsWith('.localhost') ? '127.0.0.1' : hostname;
    const upstream = net.connect(Number(match[2]), host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    sockets.add(client).add(upstream);
    const cleanup = () => {
      client.destroy();
      upstream.destroy();
    };
    upstream.on('error', () => {
      if (!client.destroyed) client.end('HTTP/1.1 502 Bad Gateway\r\n\r\n');
      cleanup();
    });
    client.on('error', cleanup);
    client.on('close', () => sockets.delete(client));
    upstream.on('close', () => sockets.delete(upstream));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    tunnels,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
