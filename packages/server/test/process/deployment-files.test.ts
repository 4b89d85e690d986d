import { execFile, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { parse as parseYaml } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registryChildEnv, request } from '@pkg/testkit';
import { SETTINGS, envName } from '../../src/config/settings.js';

// What can be tested here of the container image, the compose file and the systemd unit: this
// machine has no container engine and no systemd as PID 1 (docs/operations.md says what was not run).

const root = fileURLToPath(new URL('../../../../', import.meta.url));
const read = (file: string) => readFileSync(path.join(root, file), 'utf8');
const knownVariables = new Set(['PKG_REGISTRY_CONFIG', ...SETTINGS.map((spec) => envName(spec))]);

/** The node options of `npm start`: the container and the unit start the server the same way. */
function npmStartNodeOptions(): string[] {
  const start = (JSON.parse(read('package.json')) as { scripts: { start: string } }).scripts.start;
  return start.split(/\s+/).filter((word) => word.startsWith('--'));
}

interface Instruction {
  keyword: string;
  args: string;
}

/** Dockerfile instructions, continuation lines joined, comments dropped. */
function dockerfile(): Instruction[] {
  const joined = read('Dockerfile')
    .split('\n')
    .filter((line) => !/^\s*#/.test(line))
    .join('\n')
    .replace(/\\\n/g, ' ');
  return joined
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .map((line) => {
      const [keyword = '', ...rest] = line.split(/\s+/);
      return { keyword: keyword.toUpperCase(), args: rest.join(' ') };
    });
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'deployment-files-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('Dockerfile', () => {
  const instructions = dockerfile();
  const runtimeStart = instructions.findLastIndex((i) => i.keyword === 'FROM');
  const runtime = instructions.slice(runtimeStart);
  const json = (keyword: string) => JSON.parse(runtime.find((i) => i.keyword === keyword)!.args) as string[];
  const env = Object.fromEntries(
    runtime
      .filter((i) => i.keyword === 'ENV')
      .flatMap((i) => i.args.split(/\s+/).map((pair) => pair.split('=') as [string, string])),
  );

  it('is multi-stage: the runtime stage copies built files from the build stage', () => {
    expect(instructions.filter((i) => i.keyword === 'FROM').length).toBeGreaterThanOrEqual(2);
    expect(instructions[0]!.args).toMatch(/ AS build$/);
    expect(runtime.filter((i) => i.keyword === 'COPY').every((i) => i.args.startsWith('--from=build '))).toBe(true);
  });

  it('copies files that exist after a build, and only what serve needs', () => {
    for (const copy of runtime.filter((i) => i.keyword === 'COPY')) {
      const source = copy.args.split(/\s+/)[1]!.replace(/^\/src\//, '');
      if (source === 'node_modules' || source.endsWith('/dist')) continue; // made by the build stage
      expect(existsSync(path.join(root, source)), source).toBe(true);
    }
  });

  it('runs as an unprivileged user with a data volume, a health check and the memory options of npm start', () => {
    const user = runtime.find((i) => i.keyword === 'USER')!.args;
    expect(user).not.toMatch(/^(root|0)$/);
    expect(runtime.find((i) => i.keyword === 'RUN')!.args).toContain(`useradd --system`);
    expect(JSON.parse(runtime.find((i) => i.keyword === 'VOLUME')!.args)).toEqual([env.PKG_REGISTRY_DATA]);
    expect(runtime.find((i) => i.keyword === 'HEALTHCHECK')!.args).toContain('/-/health');
    const entrypoint = json('ENTRYPOINT');
    expect(entrypoint[0]).toBe('node');
    expect(entrypoint.slice(1, -1)).toEqual(npmStartNodeOptions());
    expect(json('CMD')).toEqual(['serve']);
    for (const name of Object.keys(env).filter((n) => n.startsWith('PKG_REGISTRY_'))) expect(knownVariables).toContain(name);
    expect(env.UV_THREADPOOL_SIZE).toBe(/UV_THREADPOOL_SIZE=(\d+)/.exec(read('package.json'))![1]);
  });

  it("the image's start command serves, and its health check passes against it", async () => {
    const entrypoint = json('ENTRYPOINT');
    const program = entrypoint.at(-1)!.replace(/^\/app\//, root);
    const data = path.join(dir, 'image-data');
    const child = spawn(process.execPath, [...entrypoint.slice(1, -1), program, ...json('CMD')], {
      env: registryChildEnv({ ...env, PKG_REGISTRY_DATA: data, PKG_REGISTRY_HOST: '127.0.0.1', PKG_REGISTRY_PORT: '0' }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      const port = await new Promise<number>((resolve, reject) => {
        let out = '';
        child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
          out += chunk;
          const match = /"address":"http:\/\/127\.0\.0\.1:(\d+)"/.exec(out);
          if (match) resolve(Number(match[1]));
        });
        child.once('exit', (code) => reject(new Error(`exited ${code}`)));
      });
      expect((await request(`http://127.0.0.1:${port}/-/health`)).status).toBe(200);
      const healthcheck = JSON.parse(
        /CMD (\[.*\])$/.exec(runtime.find((i) => i.keyword === 'HEALTHCHECK')!.args)![1]!,
      ) as string[];
      expect(healthcheck[0]).toBe('node');
      const probe = await promisify(execFile)(process.execPath, healthcheck.slice(1), {
        env: { ...registryChildEnv(), PKG_REGISTRY_PORT: String(port) },
      }).then(
        () => 0,
        (err: { code?: number }) => err.code ?? 1,
      );
      expect(probe).toBe(0);
    } finally {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    }
    expect(child.exitCode).toBe(0);
  });
});

/** The parts of a compose service these tests read. */
interface ComposeService {
  build?: unknown;
  environment: Record<string, string>;
  depends_on: Record<string, unknown> | string[];
  volumes?: string[];
}

describe('deploy/compose.yaml', () => {
  const compose = parseYaml(read('deploy/compose.yaml'), { merge: true }) as {
    services: Record<string, ComposeService>;
    volumes: Record<string, unknown>;
  };

  it('runs PostgreSQL, an S3-compatible store, Redis, two registry nodes and a proxy', () => {
    expect(Object.keys(compose.services).sort()).toEqual(
      ['minio', 'minio-bucket', 'postgres', 'proxy', 'redis', 'registry-1', 'registry-2'].sort(),
    );
    for (const node of ['registry-1', 'registry-2']) {
      const service = compose.services[node]!;
      expect(service.build).toEqual({ context: '..', dockerfile: 'Dockerfile' });
      expect(service.environment.PKG_REGISTRY_DATABASE).toMatch(
        /^postgres:\/\/registry:\$\{POSTGRES_PASSWORD[^}]*\}@postgres:5432\/registry$/,
      );
      expect(service.environment.PKG_REGISTRY_STORAGE).toMatch(/^s3:\/\/registry\?endpoint=http%3A%2F%2Fminio%3A9000/);
      expect(service.environment.PKG_REGISTRY_REDIS).toBe('redis://redis:6379');
      for (const name of Object.keys(service.environment)) expect(knownVariables).toContain(name);
      expect(Object.keys(service.depends_on).sort()).toEqual(['minio-bucket', 'postgres', 'redis']);
    }
    expect(compose.services.proxy!.depends_on).toEqual(['registry-1', 'registry-2']);
    expect(compose.services.proxy!.volumes).toEqual(['./Caddyfile:/etc/caddy/Caddyfile:ro']);
  });

  it('the files it names exist, and the proxy checks each node at /-/health', () => {
    expect(existsSync(path.join(root, 'deploy/scale-out.env.example'))).toBe(true);
    expect(existsSync(path.join(root, 'Dockerfile'))).toBe(true);
    const caddy = read('deploy/Caddyfile');
    expect(caddy).toContain('reverse_proxy registry-1:4873 registry-2:4873');
    expect(caddy).toContain('health_uri /-/health');
    // The example's variables are those compose interpolates, and none is a misspelt setting.
    const example = read('deploy/scale-out.env.example');
    for (const variable of ['POSTGRES_PASSWORD', 'AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY'])
      expect(example).toMatch(new RegExp(`^${variable}=`, 'm'));
  });
});

describe('deploy/pkg-registry.service', () => {
  const unit = read('deploy/pkg-registry.service');
  const values = (key: string) => [...unit.matchAll(new RegExp(`^${key}=(.*)$`, 'gm'))].map((m) => m[1]!);

  it('creates its user and state directory, waits for the network, keeps secrets in an environment file', () => {
    expect(values('DynamicUser')).toEqual(['yes']);
    expect(values('StateDirectory')).toEqual(['pkg-registry']);
    expect(values('Wants')).toEqual(['network-online.target']);
    expect(values('After')[0]).toContain('network-online.target');
    expect(values('EnvironmentFile')).toEqual(['-/etc/pkg-registry/pkg-registry.env']);
    expect(values('Environment')).toContain('PKG_REGISTRY_DATA=/var/lib/pkg-registry');
  });

  it('does not restart on a configuration error (exit 2), and is hardened', () => {
    expect(values('Restart')).toEqual(['on-failure']);
    expect(values('RestartPreventExitStatus')).toEqual(['2']);
    for (const [key, value] of [
      ['NoNewPrivileges', 'yes'],
      ['ProtectSystem', 'strict'],
      ['ProtectHome', 'yes'],
      ['PrivateTmp', 'yes'],
      ['CapabilityBoundingSet', ''],
    ] as const) {
      expect(values(key), key).toEqual([value]);
    }
    // V8 compiles code at run time: forbidding writable executable memory would stop node.
    expect(values('MemoryDenyWriteExecute')).toEqual([]);
  });

  it('starts the program of the release tarball installed with npm install -g, with the options of npm start', () => {
    const exec = values('ExecStart')[0]!.split(/\s+/);
    expect(exec.slice(0, 2)).toEqual(['/usr/bin/env', 'node']);
    expect(exec.slice(2, -2)).toEqual(npmStartNodeOptions());
    // scripts/release.js publishes the server as pkg-registry-server; npm -g puts it here.
    expect(read('scripts/release.js')).toContain("name: 'pkg-registry-server'");
    expect(exec.at(-2)).toBe('/usr/local/lib/node_modules/pkg-registry-server/bin/pkg-registry.js');
    expect(exec.at(-1)).toBe('serve');
  });

  it.skipIf(!existsSync('/usr/bin/systemd-analyze'))('passes systemd-analyze verify', async () => {
    const copy = path.join(dir, 'pkg-registry.service');
    await copyFile(path.join(root, 'deploy/pkg-registry.service'), copy);
    const { stdout, stderr } = await promisify(execFile)('systemd-analyze', ['verify', copy]);
    expect(`${stdout}${stderr}`.trim()).toBe('');
  });
});
