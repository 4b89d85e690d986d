import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SETTINGS, envName } from '@pkg/server';
import { startScaleOutBacking, type ScaleOutBacking } from '../registry.js';
import { runRegistryCli, spawnRegistry, type CliRun, type SpawnedRegistry } from '../spawn-registry.js';

export type ReliabilityProfile = 'embedded' | 'scale-out';

/**
 * The registry under test: the built `pkg-registry serve` as a child process on 127.0.0.1 (so
 * that a crash is a process death, and kill -9 is real), on the embedded default or on a fresh
 * PostgreSQL schema, S3 test server and Redis prefix. Limits are off: the scenarios measure
 * robustness, not the limits.
 */
export class Target {
  readonly profile: ReliabilityProfile;
  readonly dataDir: string;
  readonly #backing: ScaleOutBacking | undefined;
  #settings: Record<string, string> = {};
  /** The first start's port, kept by restarts so that clients find the server again. */
  #port: number | undefined;
  #process: SpawnedRegistry | undefined;
  #expectedExit = false;
  /** Exits nobody asked for: crashes. */
  deaths = 0;
  readonly deathReasons: string[] = [];

  private constructor(profile: ReliabilityProfile, dataDir: string, backing: ScaleOutBacking | undefined) {
    this.profile = profile;
    this.dataDir = dataDir;
    this.#backing = backing;
  }

  /** A registry on `profile`; `settings` are extra settings of the server (`{ maxTarballSize: '1024' }`). */
  static async start(profile: ReliabilityProfile, settings: Record<string, string> = {}): Promise<Target> {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'pkg-reliability-'));
    const backing = profile === 'scale-out' ? await startScaleOutBacking() : undefined;
    const target = new Target(profile, dataDir, backing);
    target.#settings = settings;
    await target.startProcess();
    return target;
  }

  get url(): string {
    return this.#running().url;
  }

  /** The server's process (not the parent a relaunched server has: see SpawnedRegistry.child). */
  get pid(): number {
    return this.#running().serverPid;
  }

  /** Runs `pkg-registry <args>` (an admin command) on this registry's data and database. */
  admin(args: string[]): Promise<CliRun> {
    return runRegistryCli([...args, '--data', this.dataDir], { env: this.#env() });
  }

  /** Starts the server process (again) on the same data. */
  async startProcess(): Promise<void> {
    const env = this.#env();
    this.#expectedExit = false;
    const spawned = await spawnRegistry({
      dataDir: this.dataDir,
      env,
      ...(this.#port !== undefined ? { args: ['--port', String(this.#port)] } : {}),
    });
    this.#process = spawned;
    this.#port = spawned.port;
    void spawned.exited.then(({ code, signal }) => {
      if (this.#expectedExit || this.#process !== spawned) return;
      this.deaths++;
      this.deathReasons.push(`exit ${code ?? signal}: ${spawned.stderr().slice(-500)}`);
    });
  }

  #env(): Record<string, string> {
    const env: Record<string, string> = {
      PKG_REGISTRY_RATE_LIMIT_ANONYMOUS: '0',
      PKG_REGISTRY_RATE_LIMIT_AUTHENTICATED: '0',
      PKG_REGISTRY_RATE_LIMIT_PUBLISH: '0',
      PKG_REGISTRY_LOGIN_FAILURE_LIMIT: '0',
      PKG_REGISTRY_LOGIN_FAILURE_LIMIT_PER_ADDRESS: '0',
      ...this.#backing?.env,
    };
    for (const [key, value] of Object.entries({ ...this.#backing?.settings, ...this.#settings })) {
      const spec = SETTINGS.find((s) => s.key === key);
      if (!spec) throw new Error(`unknown setting '${key}'`);
      env[envName(spec)] = value;
    }
    return env;
  }

  /** SIGKILL, as a power cut would: no shutdown, no flush. */
  async kill9(): Promise<void> {
    this.#expectedExit = true;
    await this.#running().stop('SIGKILL');
  }

  /** A graceful stop (SIGTERM), as a deploy would. */
  async stopProcess(): Promise<void> {
    this.#expectedExit = true;
    await this.#running().stop('SIGTERM');
  }

  alive(): boolean {
    const child = this.#process?.child;
    return child !== undefined && child.exitCode === null && child.signalCode === null;
  }

  /** Resident memory of the server process in bytes (Linux /proc), or undefined elsewhere. */
  async rss(): Promise<number | undefined> {
    try {
      const status = await readFile(`/proc/${this.pid}/status`, 'utf8');
      const kib = /^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1];
      return kib === undefined ? undefined : Number(kib) * 1024;
    } catch {
      return undefined;
    }
  }

  async close(): Promise<void> {
    this.#expectedExit = true;
    if (this.alive()) await this.#running().stop('SIGTERM');
    await this.#backing?.close();
    await rm(this.dataDir, { recursive: true, force: true });
  }

  #running(): SpawnedRegistry {
    if (!this.#process) throw new Error('the registry process is not started');
    return this.#process;
  }
}
