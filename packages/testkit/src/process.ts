import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

/** The built `pkg-registry` binary of this repository. */
export const REGISTRY_BIN = fileURLToPath(new URL('../../server/bin/pkg-registry.js', import.meta.url));

export interface RegistryProcess {
  url: string;
  child: ChildProcess;
  /** Every JSON log line the process wrote so far. */
  logs: Record<string, unknown>[];
  /** Waits for the process to exit (after a signal, or on its own). */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * Spawns the built `pkg-registry serve` on port 0 and resolves with its address, read from the
 * `pkg-registry listening` log line. Run `npm run build` first: this uses dist/.
 */
export async function spawnRegistryProcess(dataDir: string, extraArgs: string[] = []): Promise<RegistryProcess> {
  if (!existsSync(new URL('../../server/dist/main.js', import.meta.url))) {
    throw new Error('packages/server/dist is missing: run `npm run build` before tests that spawn the binary');
  }
  const child = spawn(
    process.execPath,
    [REGISTRY_BIN, 'serve', '--host', '127.0.0.1', '--port', '0', '--data', dataDir, '--log-level', 'info', ...extraArgs],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...process.env,
        PKG_REGISTRY_RATE_LIMIT_PUBLISH: '0',
        PKG_REGISTRY_RATE_LIMIT_AUTHENTICATED: '0',
        PKG_REGISTRY_RATE_LIMIT_ANONYMOUS: '0',
      },
    },
  );
  const logs: Record<string, unknown>[] = [];
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const url = await new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.on('line', (line) => {
      let entry: Record<string, unknown>;
      try {
        entry = JSON.parse(line) as Record<string, unknown>;
      } catch {
        return;
      }
      logs.push(entry);
      if (entry.msg === 'pkg-registry listening' && typeof entry.address === 'string') resolve(entry.address);
    });
    void exited.then(({ code, signal }) =>
      reject(new Error(`pkg-registry exited before listening (code ${code}, signal ${signal}): ${stderr.slice(0, 2000)}`)),
    );
  });
  return { url, child, logs, exited };
}
