import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import type { NpmClient } from '@pkg/testkit';

/** `npm login` running in the background, its browser step still to be done. */
export interface RunningNpmLogin {
  /** The URL npm printed for the browser. */
  loginUrl: string;
  /** Resolves when npm exits. */
  exit: Promise<{ code: number | null; stdout: string; stderr: string }>;
  kill(): void;
}

/**
 * Starts `npm login --registry <url>` exactly as a user types it (no --auth-type: npm's default
 * web login) and waits for the login URL npm prints when it cannot open a browser itself.
 */
export function startNpmLogin(npm: NpmClient, timeoutMs = 30_000): Promise<RunningNpmLogin> {
  const child: ChildProcessWithoutNullStreams = spawn(process.execPath, [npm.cli, 'login', '--registry', `${npm.registry}/`], {
    env: npm.env,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  const exit = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`npm printed no login URL\n--- stdout\n${stdout}\n--- stderr\n${stderr}`));
    }, timeoutMs);
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const match = /Login at:\s*\n(https?:\/\/\S+)/.exec(stdout);
      if (match) {
        clearTimeout(timer);
        resolve({ loginUrl: match[1]!, exit, kill: () => child.kill('SIGKILL') });
      }
    });
    child.on('close', () => {
      clearTimeout(timer);
      reject(new Error(`npm exited before printing a login URL\n--- stdout\n${stdout}\n--- stderr\n${stderr}`));
    });
  });
}
