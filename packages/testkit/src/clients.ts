import { execFileSync, spawn } from 'node:child_process';
import { existsSync, realpathSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Real package managers (npm 11 and 10, pnpm 10, yarn 4) run as child processes against a test
 * registry. Each client gets its own temporary HOME, config, cache and prefix, and an
 * environment scrubbed of the caller's npm/yarn/pnpm settings, so that every request goes to the
 * registry under test and nothing else.
 */

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * A prompt to wait for on stdout/stderr and the line to answer it with (or a function of the
 * output since the previous answer, for an answer the client printed, such as a TOTP secret).
 */
export interface PromptAnswer {
  prompt: RegExp;
  answer: string | ((output: string) => string);
}

export interface RunOptions {
  cwd?: string;
  /** Answered in order: each answer is written once its prompt has appeared. */
  prompts?: PromptAnswer[];
  /** Kills the client after this many milliseconds (a hung prompt must not hang the suite). */
  timeoutMs?: number;
}

const TESTKIT_DIR = fileURLToPath(new URL('..', import.meta.url));

/** A file of an installed package, looked up through the node_modules folders above testkit. */
function installedFile(pkg: string, file: string): string {
  let dir = TESTKIT_DIR;
  for (;;) {
    const candidate = path.join(dir, 'node_modules', pkg, file);
    if (existsSync(candidate)) return candidate;
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`${pkg}/${file} is not installed: run npm install`);
    dir = parent;
  }
}

/**
 * The machine's own npm (not the npm 10 that this repository installs into node_modules/.bin,
 * which comes first on PATH under `npm test`).
 */
export function systemNpmCli(): string {
  const dirs = (process.env.PATH ?? '').split(path.delimiter).filter((dir) => dir && !dir.includes('node_modules'));
  for (const dir of dirs) {
    const bin = path.join(dir, process.platform === 'win32' ? 'npm.cmd' : 'npm');
    if (!existsSync(bin)) continue;
    const cli = path.join(path.dirname(realpathSync(bin)), 'npm-cli.js');
    if (existsSync(cli)) return cli;
  }
  throw new Error('no npm found on PATH outside node_modules');
}

export const NPM10_CLI = (): string => installedFile('npm10', 'bin/npm-cli.js');

export interface NpmLine {
  label: string;
  major: number;
  cli: () => string;
}

/**
 * The npm releases a real-client suite drives: npm 11 (the machine's) and npm 10. When the
 * scale-out profile runs too, each line drives each suite once, on one profile (npm 10 on the
 * embedded one, npm 11 on scale-out): what these suites prove of npm's side does not depend on
 * the registry's backing, and the backings answering alike is what the HTTP suites prove on both
 * profiles. `PKG_TEST_NPM_LINES=all` (`npm run test:full`) drives both lines on both.
 */
export function npmLines(): NpmLine[] {
  const lines = [
    { label: 'npm 11', major: 11, cli: systemNpmCli },
    { label: 'npm 10', major: 10, cli: NPM10_CLI },
  ];
  const scaleOutRuns = Boolean(process.env.PKG_TEST_POSTGRES && process.env.PKG_TEST_REDIS);
  if (process.env.PKG_TEST_NPM_LINES === 'all' || !scaleOutRuns) return lines;
  return process.env.PKG_TEST_PROFILE === 'scale-out' ? lines.slice(0, 1) : lines.slice(1);
}
export const PNPM_CLI = (): string => installedFile('pnpm', 'bin/pnpm.cjs');
export const YARN_CLI = (): string => installedFile('@yarnpkg/cli-dist', 'bin/yarn.js');

/** The version a CLI reports (`--version`). */
export function cliVersion(cli: string): string {
  return execFileSync(process.execPath, [cli, '--version'], { env: scrubbedEnv({}), encoding: 'utf8' }).trim();
}

/** The caller's environment without any package-manager settings, plus `extra`. */
export function scrubbedEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (/^(npm_|yarn_|pnpm_|berry_|corepack_)/i.test(key) || key === 'INIT_CWD' || key === 'NODE_ENV') continue;
    env[key] = value;
  }
  return { ...env, ...extra };
}

/** Runs `node <cli> ...args`, answering prompts, and collects its output. */
export function runCli(cli: string, args: string[], env: NodeJS.ProcessEnv, options: RunOptions = {}): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, ...args], { cwd: options.cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let sincePrompt = '';
    const prompts = [...(options.prompts ?? [])];
    const onOutput = (chunk: Buffer, sink: 'out' | 'err') => {
      const text = chunk.toString();
      if (sink === 'out') stdout += text;
      else stderr += text;
      sincePrompt += text;
      const next = prompts[0];
      if (next && next.prompt.test(sincePrompt)) {
        prompts.shift();
        const answer = typeof next.answer === 'function' ? next.answer(sincePrompt) : next.answer;
        sincePrompt = '';
        child.stdin.write(`${answer}\n`);
      }
      if (prompts.length === 0) child.stdin.end();
    };
    child.stdout.on('data', (chunk: Buffer) => onOutput(chunk, 'out'));
    child.stderr.on('data', (chunk: Buffer) => onOutput(chunk, 'err'));
    if (prompts.length === 0) child.stdin.end();
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 120_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Throws with the client's output when it failed: test failures then say why. */
export function expectSuccess(result: RunResult, what: string): RunResult {
  if (result.code !== 0) {
    throw new Error(`${what} exited with ${result.code}\n--- stdout\n${result.stdout}\n--- stderr\n${result.stderr}`);
  }
  return result;
}

/** A temporary directory removed by `cleanup`. */
async function tempDir(prefix: string): Promise<string> {
  return mkdtemp(path.join(tmpdir(), prefix));
}

/** npm (10 or 11) with its own HOME, userconfig, cache and global prefix. */
export class NpmClient {
  readonly cli: string;
  readonly registry: string;
  readonly root: string;
  readonly env: NodeJS.ProcessEnv;

  private constructor(cli: string, registry: string, root: string) {
    this.cli = cli;
    this.registry = registry;
    this.root = root;
    this.env = scrubbedEnv({
      HOME: path.join(root, 'home'),
      USERPROFILE: path.join(root, 'home'),
      npm_config_userconfig: path.join(root, 'home', '.npmrc'),
      npm_config_globalconfig: path.join(root, 'globalrc'),
      npm_config_cache: path.join(root, 'cache'),
      npm_config_prefix: path.join(root, 'prefix'),
      npm_config_registry: `${registry}/`,
      npm_config_update_notifier: 'false',
      npm_config_fund: 'false',
      npm_config_audit: 'false',
      npm_config_progress: 'false',
      // No retries: a failure must show at once, and never reach another registry.
      npm_config_fetch_retries: '0',
    });
  }

  static async create(cli: string, registry: string): Promise<NpmClient> {
    const root = await tempDir('pkg-npm-client-');
    await mkdir(path.join(root, 'home'), { recursive: true });
    return new NpmClient(cli, registry, root);
  }

  run(args: string[], options: RunOptions = {}): Promise<RunResult> {
    return runCli(this.cli, [...args, '--registry', `${this.registry}/`], this.env, options);
  }

  /**
   * `npm adduser` (creates the account, asks for an e-mail) or `npm login` (existing account),
   * legacy auth, answering the prompts on stdin.
   */
  async login(user: string, password: string, email: string, command: 'login' | 'adduser' = 'login'): Promise<RunResult> {
    const prompts: PromptAnswer[] = [
      { prompt: /Username:/, answer: user },
      { prompt: /Password:/, answer: password },
    ];
    if (command === 'adduser') prompts.push({ prompt: /Email/, answer: email });
    return this.run([command, '--auth-type=legacy'], { prompts, timeoutMs: 60_000 });
  }

  /** The token npm stored for the registry, or undefined. */
  async token(): Promise<string | undefined> {
    const npmrc = await readFile(path.join(this.root, 'home', '.npmrc'), 'utf8').catch(() => '');
    const host = new URL(this.registry).host;
    const line = npmrc.split(/\r?\n/).find((l) => l.startsWith(`//${host}/:_authToken=`));
    return line?.slice(line.indexOf('=') + 1).trim();
  }

  /** A fresh directory under the client's root, with a package.json of `manifest` when given. */
  async dir(name: string, manifest?: Record<string, unknown>, files: Record<string, string> = {}): Promise<string> {
    const dir = path.join(this.root, name);
    await mkdir(dir, { recursive: true });
    if (manifest) await writeFile(path.join(dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
    for (const [file, content] of Object.entries(files)) {
      await mkdir(path.dirname(path.join(dir, file)), { recursive: true });
      await writeFile(path.join(dir, file), content);
    }
    return dir;
  }

  async cleanup(): Promise<void> {
    await rm(this.root, { recursive: true, force: true });
  }
}

/** A finished install in a temporary project directory. */
export interface InstallRun {
  dir: string;
  result: RunResult;
  cleanup(): Promise<void>;
}

/** pnpm 10 in a temporary project with its own store, cache and HOME. */
export async function pnpmInstall(registry: string, dependencies: Record<string, string>): Promise<InstallRun> {
  const root = await tempDir('pkg-pnpm-client-');
  const dir = path.join(root, 'project');
  await mkdir(path.join(root, 'home'), { recursive: true });
  await mkdir(dir, { recursive: true });
  await writeFile(
    path.join(dir, 'package.json'),
    JSON.stringify({ name: 'pnpm-project', version: '1.0.0', private: true, dependencies }),
  );
  const env = scrubbedEnv({
    HOME: path.join(root, 'home'),
    XDG_CONFIG_HOME: path.join(root, 'config'),
    XDG_DATA_HOME: path.join(root, 'data'),
    XDG_CACHE_HOME: path.join(root, 'cache'),
    XDG_STATE_HOME: path.join(root, 'state'),
    npm_config_registry: `${registry}/`,
    npm_config_update_notifier: 'false',
    npm_config_fetch_retries: '0',
  });
  const result = await runCli(
    PNPM_CLI(),
    [
      'install',
      '--registry',
      `${registry}/`,
      '--store-dir',
      path.join(root, 'store'),
      '--cache-dir',
      path.join(root, 'cache'),
      '--reporter',
      'append-only',
    ],
    env,
    { cwd: dir },
  );
  return { dir, result, cleanup: () => rm(root, { recursive: true, force: true }) };
}

/**
 * yarn 4 (berry) in a temporary project: the registry as `npmRegistryServer`, plain HTTP allowed
 * for 127.0.0.1 only, no global cache, telemetry off, node_modules linker.
 */
export async function yarnInstall(registry: string, dependencies: Record<string, string>): Promise<InstallRun> {
  const root = await tempDir('pkg-yarn-client-');
  const dir = path.join(root, 'project');
  await mkdir(path.join(root, 'home'), { recursive: true });
  await mkdir(dir, { recursive: true });
  await writeFile(
    path.join(dir, 'package.json'),
    JSON.stringify({ name: 'yarn-project', version: '1.0.0', private: true, dependencies }),
  );
  await writeFile(
    path.join(dir, '.yarnrc.yml'),
    [
      `npmRegistryServer: "${registry}"`,
      'unsafeHttpWhitelist:',
      '  - "127.0.0.1"',
      'enableGlobalCache: false',
      'enableTelemetry: false',
      'nodeLinker: node-modules',
      `globalFolder: "${path.join(root, 'global')}"`,
      `cacheFolder: "${path.join(dir, '.yarn', 'cache')}"`,
      'httpRetry: 0',
      // Yarn makes installs immutable when it sees CI=true; this test creates the lockfile.
      'enableImmutableInstalls: false',
      '',
    ].join('\n'),
  );
  await writeFile(path.join(dir, 'yarn.lock'), '');
  const env = scrubbedEnv({ HOME: path.join(root, 'home'), YARN_IGNORE_PATH: '1', YARN_ENABLE_TELEMETRY: '0' });
  const result = await runCli(YARN_CLI(), ['install'], env, { cwd: dir });
  return { dir, result, cleanup: () => rm(root, { recursive: true, force: true }) };
}
