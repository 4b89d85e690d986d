#!/usr/bin/env node
// `npm run reliability`: the reliability suite against the built registry (see
// docs/reliability.md). PostgreSQL and Redis are looked for where `npm test` looks for them;
// the test kit reads their URLs when it is loaded, so they are set before the import.
import net from 'node:net';

const services = [
  { env: 'PKG_TEST_POSTGRES', url: 'postgres://postgres@127.0.0.1:5432/test', port: 5432 },
  { env: 'PKG_TEST_REDIS', url: 'redis://127.0.0.1:6379', port: 6379 },
];

function reachable(port) {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port, timeout: 2000 });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(false));
  });
}

let scaleOutAvailable = true;
for (const service of services) {
  if (process.env[service.env]) continue;
  if (await reachable(service.port)) process.env[service.env] = service.url;
  else scaleOutAvailable = false;
}

const { reliabilityCli } = await import('../dist/index.js');
process.exitCode = await reliabilityCli(process.argv.slice(2), {
  out: (text) => process.stdout.write(`${text}\n`),
  err: (text) => process.stderr.write(`${text}\n`),
  scaleOutAvailable,
  env: process.env,
});
