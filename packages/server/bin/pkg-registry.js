#!/usr/bin/env node
// libuv's thread pool runs file IO (tarball reads, fdatasync on publish) and compression; its
// default of 4 threads lets four slow syncs stall every other file read. Set before the first
// use of the pool, so the server's modules are loaded afterwards.
process.env.UV_THREADPOOL_SIZE ??= '8';
// Loading the server's modules would grow V8's young generation past a small youngGeneration
// setting before serve reads it: hold it until the server listens (src/young-generation.ts).
if (process.argv[2] === 'serve') (await import('../dist/young-generation.js')).holdYoungGeneration();
const { main } = await import('../dist/main.js');

process.exitCode = await main(process.argv.slice(2));
