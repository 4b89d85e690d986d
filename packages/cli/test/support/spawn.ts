import { spawn } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const PKG_BIN = fileURLToPath(new URL('../../bin/pkg.js', import.meta.url));

export interface PkgResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A user's home for the spawned client: HOME and XDG directories in a fresh temp dir. */
export interface Home {
  dir: string;
  env: Record<string, string>;
  configFile: string;
  tokenFile: string;
  keyFile: string;
  upmconfig: string;
}

export async function makeHome(): Promise<Home> {
  const dir = await mkdtemp(path.join(tmpdir(), 'pkg-e2e-home-'));
  return {
    dir,
    env: {
      HOME: dir,
      XDG_CONFIG_HOME: path.join(dir, '.config'),
      XDG_DATA_HOME: path.join(dir, '.local', 'share'),
      XDG_CACHE_HOME: path.join(dir, '.cache'),
    },
    configFile: path.join(dir, '.config', 'pkg', 'config.json'),
    tokenFile: path.join(dir, '.local', 'share', 'pkg', 'credentials', 'tokens.json'),
    keyFile: path.join(dir, '.local', 'share', 'pkg', 'credentials', 'tokens.key'),
    upmconfig: path.join(dir, '.upmconfig.toml'),
  };
}

/** The parent's environment without anything that would change the client's behaviour. */
function cleanEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value === undefined) continue;
    if (
      /^(PKG_|XDG_|UPM_)|^(https?_proxy|no_proxy|NODE_EXTRA_CA_CERTS|NODE_OPTIONS|DBUS_SESSION_BUS_ADDRESS|FORCE_COLOR|NO_COLOR)$/i.test(
        key,
      )
    )
      continue;
    env[key] = value;
  }
  return env;
}

/** Runs the built `pkg` with `args`, `input` piped to stdin (closed when absent). */
export function runPkg(
  args: string[],
  options: { home: Home; env?: Record<string, string>; input?: string; nodeArgs?: string[]; cwd?: string },
): Promise<PkgResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...(options.nodeArgs ?? []), PKG_BIN, ...args], {
      env: { ...cleanEnv(), ...options.home.env, ...options.env },
      ...(options.cwd ? { cwd: options.cwd } : {}),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    // A pkg that ends before reading its input closes the pipe (EPIPE): its exit code and output
    // are the result, not the failed write.
    child.stdin.on('error', () => undefined);
    child.stdin.end(options.input ?? '');
  });
}

/** Logs in through piped stdin; returns the result. */
export function pipedLogin(
  home: Home,
  registry: string,
  user: string,
  password = 'secret-password',
  extra: string[] = [],
  env: Record<string, string> = {},
) {
  return runPkg(['login', '--registry', registry, ...extra], { home, env, input: `${user}\n${password}\n${user}@example.com\n` });
}

const PTY_DRIVER = `
import os, pty, select, sys, json, time
args = json.loads(sys.argv[1])
steps = json.loads(sys.argv[2])
env = json.loads(sys.argv[3])
pid, fd = pty.fork()
if pid == 0:
    os.execve(args[0], args, env)
out = b''
def read_until(marker, timeout=20):
    global out
    end = time.time() + timeout
    while marker.encode() not in out:
        left = end - time.time()
        if left <= 0:
            raise SystemExit('timed out waiting for ' + marker + ' in ' + repr(out))
        r, _, _ = select.select([fd], [], [], left)
        if r:
            try:
                chunk = os.read(fd, 4096)
            except OSError:
                raise SystemExit('pty closed before ' + marker + ': ' + repr(out))
            if not chunk:
                raise SystemExit('pty closed before ' + marker)
            out += chunk
for prompt, answer in steps:
    read_until(prompt)
    time.sleep(0.05)
    os.write(fd, (answer + '\\r').encode())
while True:
    try:
        chunk = os.read(fd, 4096)
    except OSError:
        break
    if not chunk:
        break
    out += chunk
_, status = os.waitpid(pid, 0)
sys.stdout.buffer.write(out)
sys.exit(os.waitstatus_to_exitcode(status))
`;

/**
 * Runs the built `pkg` in a pseudo-terminal (python3's pty module), answering each prompt
 * only once it appears, as a person would. Returns the terminal transcript: everything the
 * terminal showed, echoes included.
 */
export async function runPkgInPty(
  args: string[],
  steps: [prompt: string, answer: string][],
  options: { home: Home; env?: Record<string, string>; cwd?: string },
): Promise<PkgResult> {
  const dir = await mkdtemp(path.join(tmpdir(), 'pkg-pty-'));
  const driver = path.join(dir, 'driver.py');
  await writeFile(driver, PTY_DRIVER);
  const env = { ...cleanEnv(), ...options.home.env, ...options.env, TERM: 'xterm' };
  return new Promise((resolve, reject) => {
    const child = spawn(
      'python3',
      [driver, JSON.stringify([process.execPath, PKG_BIN, ...args]), JSON.stringify(steps), JSON.stringify(env)],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
        ...(options.cwd ? { cwd: options.cwd } : {}),
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
