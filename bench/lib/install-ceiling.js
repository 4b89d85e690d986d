#!/usr/bin/env node
// The limit of the install benchmark: a bare node:http server answering every request with the
// bytes (status, headers, body) our registry sent for it, from memory. It first records: in
// `record` mode it forwards each request it does not hold to our registry, with its own address as
// the Host (so the tarball URLs in the documents point back here, as our registry writes them for
// whatever host it is asked on), and keeps the answer. In `replay` mode it only answers from
// memory; a request it never saw is a 599 and is counted as a miss, which fails the run.
//
//   node install-ceiling.js <port> <our registry's URL>
// `PUT /__mode/record|replay` switches; `PUT /__delay/<ms>` delays every answer from memory (a
// registry across a network); `GET /__stats` gives {requests, bytes, misses}.
import http from 'node:http';
import { setTimeout } from 'node:timers';

const [port, upstream] = process.argv.slice(2);
const upstreamUrl = new URL(upstream);
const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
const HOP_BY_HOP = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding']);
/** What can change our registry's answer to one URL: representation, conditional and range headers. */
const VARY = ['accept', 'accept-encoding', 'if-none-match', 'if-modified-since', 'range', 'authorization'];

const held = new Map();
let mode = 'record';
/** Each answer from memory waits this long first: a registry that far away (`PUT /__delay/<ms>`). */
let delayMs = 0;
const stats = { requests: 0, bytes: 0, misses: 0 };

const keyOf = (req) => [req.method, req.url, ...VARY.map((h) => req.headers[h] ?? '')].join('\n');

function send(res, answer) {
  stats.requests++;
  stats.bytes += answer.body.length;
  res.writeHead(answer.status, answer.headers);
  res.end(answer.body);
}

function record(req, res, key, body) {
  const headers = { ...req.headers, host: req.headers.host };
  delete headers.connection;
  const out = http.request(
    { host: upstreamUrl.hostname, port: upstreamUrl.port, method: req.method, path: req.url, headers, agent },
    (answer) => {
      const chunks = [];
      answer.on('data', (c) => chunks.push(c));
      answer.on('end', () => {
        const data = Buffer.concat(chunks);
        const kept = [];
        for (let i = 0; i < answer.rawHeaders.length; i += 2) {
          if (!HOP_BY_HOP.has(answer.rawHeaders[i].toLowerCase())) kept.push(answer.rawHeaders[i], answer.rawHeaders[i + 1]);
        }
        if (answer.headers['content-length'] === undefined && answer.statusCode !== 304 && answer.statusCode !== 204)
          kept.push('Content-Length', String(data.length));
        const saved = { status: answer.statusCode, headers: kept, body: data };
        if (req.method === 'GET' || req.method === 'HEAD') held.set(key, saved);
        send(res, saved);
      });
    },
  );
  out.on('error', (err) => {
    res.writeHead(502).end(String(err));
  });
  out.end(body);
}

http
  .createServer((req, res) => {
    if (req.url.startsWith('/__delay/')) {
      delayMs = Number(req.url.slice('/__delay/'.length)) || 0;
      req.resume();
      res.writeHead(204).end();
      return;
    }
    if (req.url.startsWith('/__mode/')) {
      mode = req.url.slice('/__mode/'.length);
      req.resume();
      res.writeHead(204).end();
      return;
    }
    if (req.url === '/__stats') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ...stats, held: held.size, mode }));
      return;
    }
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const key = keyOf(req);
      const answer = held.get(key);
      if (answer && delayMs > 0) setTimeout(() => send(res, answer), delayMs);
      else if (answer) send(res, answer);
      else if (mode === 'record') record(req, res, key, Buffer.concat(chunks));
      else {
        stats.misses++;
        res.writeHead(599, { 'content-type': 'text/plain' }).end(`not recorded: ${req.method} ${req.url}`);
      }
    });
  })
  .listen(Number(port), '127.0.0.1');
