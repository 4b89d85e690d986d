#!/usr/bin/env node
// libuv's thread pool runs file IO (tarball reads, fdatasync on publish) and compression; its
// default of 4 threads lets four slow syncs stall every other file read. Set before the first
// use of the pool, so the server's modules are loaded afterwards.
process.env.UV_THREADPOOL_SIZE ??= '8';
const { main } = await import('../dist/main.js');

process.exitCode = await main(process.argv.slice(2));
