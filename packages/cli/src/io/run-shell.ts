import { spawn } from 'node:child_process';
import type { ShellOutcome } from '../deps.js';

/** Output kept of a command: the end of it, where tools say what went wrong. */
const KEPT = 64 * 1024;

/** Deps.runShell on Node: the platform's shell (sh, cmd.exe), stdin closed, output collected. */
export function runShell(command: string, cwd: string): Promise<ShellOutcome> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, { cwd, shell: true, stdio: ['ignore', 'pipe', 'pipe'], windowsHide: true });
    let output = '';
    const collect = (chunk: Buffer) => {
      output = (output + chunk.toString('utf8')).slice(-KEPT);
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    child.on('error', reject);
    child.on('close', (status, signal) => resolve({ status, signal, output }));
  });
}
