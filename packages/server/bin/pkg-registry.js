#!/usr/bin/env node
// `serve` without its node options (a plain `node`, as npm's bin links and shims start it)
// runs as a child that has them: dist/node-options.js says why and how.
import { relaunchIfNeeded } from '../dist/node-options.js';

const relaunched = await relaunchIfNeeded(process.argv.slice(2));
if (relaunched !== undefined) process.exitCode = relaunched;
else {
  const { main } = await import('../dist/main.js');
  process.exitCode = await main(process.argv.slice(2));
}
