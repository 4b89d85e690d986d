// Minimal HTTP client of the runner (node:http, keep-alive): the load itself comes from wrk.
import http from 'node:http';
import { setTimeout } from 'node:timers';

export const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });

/** One request; resolves with status, headers and the whole body (never rejects on a status). */
export function request(url, { method = 'GET', headers = {}, body, timeoutMs = 60_000, useAgent = agent } = {}) {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers, agent: useAgent }, (res) => {
      const chunks = [];
      res.on('data', (chunk) => chunks.push(chunk));
      res.on('end', () =>
        resolve({ status: res.statusCode, headers: res.headers, rawHeaders: res.rawHeaders, body: Buffer.concat(chunks) }),
      );
      res.on('error', reject);
    });
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`${method} ${url}: no answer in ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(body);
  });
}

export async function requestJson(url, options = {}) {
  const res = await request(url, options);
  let json;
  try {
    json = JSON.parse(res.body.toString('utf8'));
  } catch {
    json = undefined;
  }
  return { ...res, json };
}

/** Polls `url` until it answers (any status) or `timeoutMs` passes. */
export async function waitForHttp(url, timeoutMs = 30_000, isAlive = () => true) {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (!isAlive()) throw new Error(`the process serving ${url} exited`);
    try {
      await request(url, { timeoutMs: 2000, useAgent: false });
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  throw new Error(`${url} did not answer within ${timeoutMs / 1000} s`);
}

/** A free TCP port on 127.0.0.1. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = http.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}
