// Loaded into each client process of the install benchmark (`NODE_OPTIONS=--import …`): counts
// the HTTP requests it sends (node:http's and undici's diagnostics channels), the bytes its
// sockets read and wrote, and at exit appends one JSON line with those and its CPU time to the
// file named by BENCH_INSTALL_PROBE. It changes nothing the client does.
import dc from 'node:diagnostics_channel';
import { appendFileSync } from 'node:fs';

const out = process.env.BENCH_INSTALL_PROBE;
if (out) {
  const sockets = [];
  let requests = 0;
  dc.subscribe('net.client.socket', ({ socket }) => sockets.push(socket));
  dc.subscribe('http.client.request.start', () => requests++);
  dc.subscribe('undici:request:create', () => requests++);
  process.on('exit', () => {
    const usage = process.resourceUsage();
    const line = {
      pid: process.pid,
      requests,
      connections: sockets.length,
      bytesRead: sockets.reduce((sum, s) => sum + (s.bytesRead ?? 0), 0),
      bytesWritten: sockets.reduce((sum, s) => sum + (s.bytesWritten ?? 0), 0),
      cpuSeconds: (usage.userCPUTime + usage.systemCPUTime) / 1e6,
      maxRssMiB: usage.maxRSS / 1024,
    };
    appendFileSync(out, `${JSON.stringify(line)}\n`);
  });
}
