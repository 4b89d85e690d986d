#!/usr/bin/env node
// libuv's thread pool runs file IO (tarball reads, fdatasync on publish) and compression; its
// default of 4 threads lets four slow syncs stall every other file read. Set before the first
// use of the pool, so the server's modules are loaded afterwards.
process.env.UV_THREADPOOL_SIZE ??= '8';
// V8 grows the young generation to 2 × 16 MiB under load, which is a third of the server's memory
// (bench/README.md, "Memory"); kept at its initial size, it costs no measurable CPU here because
// a cached request allocates little. NODE_OPTIONS naming a semi-space setting takes precedence.
if (!/semi-space/.test(process.env.NODE_OPTIONS ?? '')) {
  const { setFlagsFromString } = await import('node:v8');
  setFlagsFromString('--semi-space-growth-factor=1');
}
const { main } = await import('../dist/main.js');

process.exitCode = await main(process.argv.slice(2));
