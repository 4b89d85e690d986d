#!/usr/bin/env node
// An S3-compatible server for tests (@20minutes/s3rver) in its own process: node:
// `node --openssl-legacy-provider s3-server.mjs <directory> <bucket>`. s3rver makes listing
// continuation tokens with DES, which OpenSSL 3 only offers through its legacy provider.
// Prints {"port": N} once listening on 127.0.0.1, and stops when its stdin closes.
import S3rver from '@20minutes/s3rver';

const [directory, bucket] = process.argv.slice(2);
if (!directory || !bucket) {
  process.stderr.write('usage: s3-server.mjs <directory> <bucket>\n');
  process.exit(2);
}
const server = new S3rver({
  address: '127.0.0.1',
  port: 0,
  directory,
  silent: true,
  // s3rver computes another canonical path than AWS SDK v3 for bucket-level requests
  // (`/bucket` instead of `/bucket/`), so it would refuse every listing.
  allowMismatchedSignatures: true,
  configureBuckets: [{ name: bucket }],
});
const address = await server.run();
process.stdout.write(`${JSON.stringify({ port: address.port })}\n`);
const stop = async () => {
  await server.close();
  process.exit(0);
};
process.stdin.on('end', stop);
process.stdin.on('close', stop);
process.stdin.resume();
process.on('SIGTERM', stop);
