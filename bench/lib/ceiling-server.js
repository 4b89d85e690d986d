#!/usr/bin/env node
// The ceiling: a bare node:http server that answers with the exact bytes our registry sent for
// the same request (status, headers, body), captured beforehand. Nothing can serve those bytes
// faster on this machine with Node, so each target is reported as a percentage of this.
//
//   node ceiling-server.js <captures.json> <port>
// `PUT /__ceiling/<workload>` chooses which workload's responses are replayed.
import { readFileSync } from 'node:fs';
import http from 'node:http';

const [file, port] = process.argv.slice(2);
const captures = JSON.parse(readFileSync(file, 'utf8'));
const workloads = new Map();
for (const [id, { responses }] of Object.entries(captures)) {
  const byRequest = new Map();
  for (const [key, r] of Object.entries(responses)) {
    byRequest.set(key, { status: r.status, headers: r.headers, body: Buffer.from(r.body, 'base64') });
  }
  workloads.set(id, { byRequest, any: byRequest.values().next().value });
}
let current;

function send(res, response) {
  res.writeHead(response.status, response.headers);
  res.end(response.body);
}

http
  .createServer((req, res) => {
    if (req.url.startsWith('/__ceiling/')) {
      current = workloads.get(decodeURIComponent(req.url.slice('/__ceiling/'.length)));
      res.writeHead(current ? 204 : 404).end();
      return;
    }
    const response = current?.byRequest.get(`${req.method} ${req.url}`) ?? current?.any;
    if (!response) {
      res.writeHead(500).end();
      return;
    }
    // A request body (publish) is read whole before answering, as any server must.
    if (req.method === 'PUT' || req.method === 'POST') {
      req.on('data', () => undefined);
      req.on('end', () => send(res, response));
    } else send(res, response);
  })
  .listen(Number(port), '127.0.0.1');
