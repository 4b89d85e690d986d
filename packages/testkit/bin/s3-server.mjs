#!/usr/bin/env node
// An S3-compatible server for tests (@20minutes/s3rver) in its own process:
// `node --openssl-legacy-provider s3-server.mjs <directory> <bucket>`. s3rver makes listing
// continuation tokens with DES, which OpenSSL 3 only offers through its legacy provider.
// Prints {"port": N} once listening on 127.0.0.1, and stops when its stdin closes.
//
// Strict: every request passes our own SigV4 check (sigv4.mjs) before s3rver sees it, and a
// wrong signature, a body that does not match its signed hash, or an unsigned request is 403
// with S3's error codes. s3rver's own check stays loose because it computes another canonical
// path than AWS SDK v3 for bucket-level requests (`/bucket` instead of `/bucket/`).
// `GET /-/sigv4-stats` (not an S3 path: bucket names cannot start with '-') answers how many
// requests were verified and refused; `PUT /-/buckets/<name>` makes one more bucket, so that one
// server process can serve the registries of a whole test worker, a bucket each.
// ListMultipartUploads and AbortMultipartUpload, which s3rver lacks, are answered by
// multipart-uploads.mjs.
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import http from 'node:http';
import { dirname } from 'node:path';
import S3rver from '@20minutes/s3rver';
import { verifySigV4 } from './sigv4.mjs';
import { answerMultipartUploads } from './multipart-uploads.mjs';

const [directory, bucket] = process.argv.slice(2);
if (!directory || !bucket) {
  process.stderr.write('usage: s3-server.mjs <directory> <bucket>\n');
  process.exit(2);
}
const ACCESS_KEY_ID = 'S3RVER';
const SECRETS = { [ACCESS_KEY_ID]: 'S3RVER' };

const s3rver = new S3rver({
  address: '127.0.0.1',
  port: 0,
  directory,
  silent: true,
  allowMismatchedSignatures: true,
  configureBuckets: [{ name: bucket }],
});
// s3rver writes an object's bytes into its file in place and, for a body it holds whole,
// acknowledges the PUT before they are written: a read right after (or during) the PUT can see
// a short or empty object, which S3 never shows. Written to a temporary file and renamed into
// place once whole (after its metadata), an object is there whole or not at all, as on S3.
s3rver.store.putObject = async function putObject(object) {
  const objectPath = this.getResourcePath(object.bucket, object.key, 'object');
  await mkdir(dirname(objectPath), { recursive: true });
  const content = Buffer.isBuffer(object.content) ? object.content : Buffer.concat(await object.content.toArray());
  // A short name of its own: the object's name plus a suffix could pass the 255-byte file name limit.
  const temporary = `${dirname(objectPath)}/.partial-${randomBytes(8).toString('hex')}`;
  await writeFile(temporary, content);
  const md5 = createHash('md5').update(content).digest('hex');
  await this.putMetadata(object.bucket, object.key, object.metadata, md5);
  await rename(temporary, objectPath);
  return { size: content.length, md5 };
};
const backend = await s3rver.run();
const stats = { verified: 0, refused: 0, refusals: [] };
const agent = new http.Agent({ keepAlive: true });

const front = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    if (req.method === 'GET' && req.url === '/-/sigv4-stats') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(stats));
      return;
    }
    const made = req.method === 'PUT' ? /^\/-\/buckets\/([a-z0-9-]{3,63})$/.exec(req.url ?? '') : null;
    if (made) {
      s3rver.store.putBucket(made[1]).then(
        () => res.writeHead(201).end(),
        (err) => res.writeHead(500).end(String(err)),
      );
      return;
    }
    const body = Buffer.concat(chunks);
    const problem = verifySigV4({ method: req.method, url: req.url, headers: req.headers, body }, SECRETS);
    if (problem) {
      stats.refused++;
      if (stats.refusals.length < 20) stats.refusals.push({ method: req.method, url: req.url, ...problem });
      const xml = `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${problem.code}</Code><Message>${problem.message}</Message></Error>`;
      res.writeHead(403, { 'content-type': 'application/xml', 'content-length': Buffer.byteLength(xml) }).end(xml);
      return;
    }
    stats.verified++;
    answerMultipartUploads(req, res, directory).then(
      (answered) => {
        if (!answered) forwardToS3rver(req, res, body);
      },
      () => res.destroy(),
    );
  });
});

function forwardToS3rver(req, res, body) {
  const forward = http.request(
    { host: '127.0.0.1', port: backend.port, method: req.method, path: req.url, headers: req.headers, agent },
    (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    },
  );
  forward.on('error', () => res.destroy());
  forward.end(body);
}
await new Promise((resolve) => front.listen(0, '127.0.0.1', resolve));
process.stdout.write(`${JSON.stringify({ port: front.address().port })}\n`);

const stop = async () => {
  front.close();
  agent.destroy();
  await s3rver.close();
  process.exit(0);
};
process.stdin.on('end', stop);
process.stdin.on('close', stop);
process.stdin.resume();
process.on('SIGTERM', stop);
