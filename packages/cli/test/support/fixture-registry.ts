import { createServer, type IncomingMessage } from 'node:http';

export interface FixtureReply {
  status?: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface FixtureRegistry {
  url: string;
  requests: { method: string; url: string; authorization?: string }[];
  close(): Promise<void>;
}

/**
 * A stand-in registry on 127.0.0.1 answering from a handler, for responses the real server
 * cannot be made to give (fixed search results, 503s, 429s) and for endpoints not built yet.
 */
export async function startFixtureRegistry(
  handler: (req: IncomingMessage, url: URL) => FixtureReply | undefined,
): Promise<FixtureRegistry> {
  const requests: FixtureRegistry['requests'] = [];
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://fixture');
    requests.push({
      method: req.method ?? 'GET',
      url: `${url.pathname}${url.search}`,
      ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}),
    });
    req.resume();
    req.on('end', () => {
      const reply = handler(req, url) ?? {
        status: 404,
        body: { error: 'Package not found', code: 'NOT_FOUND', details: 'no fixture' },
      };
      res.writeHead(reply.status ?? 200, { 'content-type': 'application/json', ...reply.headers });
      res.end(reply.body === undefined ? '' : JSON.stringify(reply.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A search object as the registry sends it. */
export function searchObject(name: string, version: string, extra: Record<string, unknown> = {}) {
  return {
    package: {
      name,
      version,
      description: `${name} description`,
      keywords: ['unity', 'input'],
      author: 'Jane Doe <jane@example.com>',
      date: '2024-05-01T10:20:30.000Z',
      ...extra,
    },
    score: { final: 0.8, detail: { quality: 0.9, popularity: 0.5, maintenance: 0.7 } },
    searchScore: 1,
    downloads: { weekly: 12, monthly: 345 },
    updated: '2024-06-02T11:00:00.000Z',
  };
}
