import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { registryChildEnv } from '@pkg/testkit';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');

// The README's quick start: `npm start` at the root runs node with flags of its own
// (docs/operations.md#memory); a flag node refuses would end it before it serves anything.
// The process's memory bounds and thread pool are start options, never set while serving, so
// they are read back from the process itself (Linux's /proc).
describe('npm start', () => {
  it('serves the registry with the memory bounds and thread pool of the root package.json start script', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'pkg-npm-start-'));
    const child = spawn('npm', ['start', '--silent'], {
      cwd: repoRoot,
      env: registryChildEnv({ PKG_REGISTRY_PORT: '0', PKG_REGISTRY_DATA: path.join(dir, 'data') }),
      stdio: ['ignore', 'pipe', 'pipe'],
      // Its own process group: npm and the server it starts are stopped together.
      detached: true,
    });
    let stdout = '';
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    try {
      const listening = await new Promise<{ address: string; pid: number }>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no listening line; stderr: ${stderr}`)), 60_000);
        child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
          stdout += chunk;
          for (const line of stdout.split('\n')) {
            if (!line.includes('"pkg-registry listening"')) continue;
            clearTimeout(timer);
            resolve(JSON.parse(line) as { address: string; pid: number });
          }
        });
        child.once('exit', (code) => reject(new Error(`npm start ended with ${code}; stderr: ${stderr}`)));
      });
      const ping = await fetch(`${listening.address}/-/ping`);
      expect(ping.status).toBe(200);
      expect(stderr).not.toMatch(/bad option|not allowed|Error/);

      const argv = (await readFile(`/proc/${listening.pid}/cmdline`, 'utf8')).split('\0');
      expect(argv.slice(0, 4)).toEqual([
        expect.stringMatching(/node$/),
        '--max-semi-space-size=2',
        '--heap-growing-percent=20',
        '--no-concurrent-recompilation',
      ]);
      const environment = (await readFile(`/proc/${listening.pid}/environ`, 'utf8')).split('\0');
      expect(environment).toContain('UV_THREADPOOL_SIZE=8');
    } finally {
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGTERM');
      await exited;
      await rm(dir, { recursive: true, force: true });
    }
  });
});
