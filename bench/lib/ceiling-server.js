#!/usr/bin/env node
// The ceiling: a bare node:http server that answers with the exact bytes our registry sent for
// the same request (status, headers, body), captured just before. Nothing can serve those bytes
// faster on this machine with Node, so each target is reported as a percentage of this.
//
//   node ceiling-server.js <port>
// `PUT /__ceiling/<workload>` with the workload's captured responses as its JSON body
// (`{responses: {"GET /path": {status, headers, body (base64)}}}`) replaces what is replayed:
// the ceiling holds one workload's responses at a time, as our server is measured holding what
// the workloads so far left in it.
import http from 'node:http';

const [port] = process.argv.slice(2);
let current;

function load(json) {
  const byRequest = new Map();
  for (const [key, r] of Object.entries(JSON.parse(json).responses)) {
    byRequest.set(key, { status: r.status, headers: r.headers, body: Buffer.from(r.body, 'base64') });
  }
  return { byRequest, any: byRequest.values().next().value };
}

function send(res, response) {
  res.writeHead(response.status, response.headers);
  res.end(response.body);
}

http
  .createServer((req, res) => {
    if (req.url.startsWith('/__ceiling/')) {
      const chunks = [];
      req.on('data', (chunk) => chunks.push(chunk));
      req.on('end', () => {
        current = undefined; // the previous workload's responses go before the next are parsed
        try {
          current = load(Buffer.concat(chunks).toString('utf8'));
          res.writeHead(204).end();
        } catch (err) {
          res.writeHead(400).end(String(err));
        }
      });
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
