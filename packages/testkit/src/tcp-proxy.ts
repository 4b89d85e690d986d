import net from 'node:net';

export interface TcpProxy {
  /** The port on 127.0.0.1 that forwards to the target. */
  port: number;
  /** Drops every open connection and refuses new ones, as a service that went down. */
  cut(): Promise<void>;
  /** Accepts and forwards again, as a service that came back. */
  restore(): Promise<void>;
  close(): Promise<void>;
}

/**
 * A TCP forwarder in front of a backing service (PostgreSQL, Redis, an S3 server), so a test
 * can take the service away from one registry without stopping the shared service itself.
 */
export async function startTcpProxy(targetHost: string, targetPort: number): Promise<TcpProxy> {
  const sockets = new Set<net.Socket>();
  const track = (socket: net.Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  };
  let server: net.Server | undefined;
  let port = 0;
  const listen = async () => {
    const next = net.createServer((client) => {
      const upstream = net.connect(targetPort, targetHost);
      track(client);
      track(upstream);
      client.pipe(upstream).pipe(client);
      client.on('error', () => upstream.destroy());
      upstream.on('error', () => client.destroy());
    });
    await new Promise<void>((resolve) => next.listen(port, '127.0.0.1', resolve));
    port = (next.address() as net.AddressInfo).port;
    server = next;
  };
  const stop = async () => {
    const current = server;
    server = undefined;
    for (const socket of sockets) socket.destroy();
    if (current) await new Promise<void>((resolve) => current.close(() => resolve()));
  };
  await listen();
  return {
    get port() {
      return port;
    },
    cut: stop,
    restore: listen,
    close: stop,
  };
}
