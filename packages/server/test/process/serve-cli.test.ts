import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request, runRegistryCli, spawnRegistry } from '@pkg/testkit';
import { envName, SETTINGS } from '../../src/config/settings.js';

// Spawns the built binary: run `npm run build` first.
const repoRoot = fileURLToPath(new URL('../../../../', import.meta.url));

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'serve-cli-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function configFile(name: string, content: string): Promise<string> {
  const file = path.join(dir, name);
  await writeFile(file, content);
  return file;
}

describe('pkg-registry serve: a bad setting stops start-up with exit code 2', () => {
  const cases: [string, () => Promise<{ args: string[]; env?: Record<string, string> }>, RegExp][] = [
    ['an unknown flag', async () => ({ args: ['--prot', '1'] }), /Unknown option '--prot'/],
    ['a stray positional argument', async () => ({ args: ['extra'] }), /Unexpected argument 'extra'/],
    ['a port that is not a number', async () => ({ args: ['--port', 'abc'] }), /setting 'port' must be an integer, got 'abc'/],
    ['a port out of range', async () => ({ args: ['--port', '70000'] }), /setting 'port' must be at most 65535/],
    ['a bad enum value', async () => ({ args: ['--read-access', 'everyone'] }), /'readAccess' must be one of anonymous, token/],
    ['a bad URL', async () => ({ args: ['--public-url', 'not a url'] }), /'publicUrl' must be an absolute http\(s\) URL/],
    [
      'a bad boolean in the env',
      async () => ({ args: [], env: { PKG_REGISTRY_SIGNUP: 'perhaps' } }),
      /'signup' must be true or false/,
    ],
    [
      'an unknown PKG_REGISTRY_ variable',
      async () => ({ args: [], env: { PKG_REGISTRY_PROT: '1' } }),
      /unknown environment variable PKG_REGISTRY_PROT/,
    ],
    [
      'an unknown key in the config file',
      async () => ({ args: ['--config', await configFile('unknown.json', '{"prot": 1}')] }),
      /unknown setting 'prot' in config file/,
    ],
    [
      'a wrong type in the config file',
      async () => ({ args: ['--config', await configFile('type.json', '{"port": "high"}')] }),
      /setting 'port' must be an integer, got 'high'/,
    ],
    [
      'a config file that is not JSON',
      async () => ({ args: ['--config', await configFile('bad.json', '{port: 1')] }),
      /is not valid JSON/,
    ],
    [
      'a config file given by env that does not exist',
      async () => ({ args: [], env: { PKG_REGISTRY_CONFIG: path.join(dir, 'missing.json') } }),
      /cannot read config file .*missing\.json: ENOENT/,
    ],
    [
      'a certificate without a key',
      async () => ({ args: ['--tls-cert', path.join(dir, 'c.pem')] }),
      /tlsCert and tlsKey must be given together/,
    ],
    [
      'TLS files that are not PEM',
      async () => ({
        args: ['--tls-cert', await configFile('c.pem', 'nope'), '--tls-key', await configFile('k.pem', 'nope')],
      }),
      /setting 'tlsCert': .* is not a PEM file/,
    ],
  ];

  it.each(cases)('%s', async (_label, make, message) => {
    const { args, env } = await make();
    const run = await runRegistryCli(['serve', '--data', path.join(dir, 'data'), ...args], { env });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^Error: /);
    expect(run.stderr).toMatch(message);
    expect(run.stderr).not.toMatch(/\n\s+at /); // no stack trace
    expect(run.stdout).toBe('');
  });

  it('an unknown command is a usage error too', async () => {
    const run = await runRegistryCli(['serv']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("Error: unknown command 'serv'");
  });

  it.each([[['help']], [['--help']]])('%j lists every flag of serve, aligned, and exits 0', async (args) => {
    const run = await runRegistryCli(args);
    expect(run.code).toBe(0);
    for (const flag of ['--host', '--port', '--data', '--config', '--tls-cert', '--database-cache']) {
      expect(run.stdout).toContain(flag);
    }
    // Each option's description starts in one column, two spaces at least after the longest option.
    const options = run.stdout.split('\n').filter((line) => line.startsWith('  --'));
    expect(options.length).toBeGreaterThan(20);
    const columns = new Set(options.map((line) => /^ {2}--\S+ <[^>]+> {2,}(?=\S)/.exec(line)?.[0].length));
    expect([...columns]).toHaveLength(1);
    expect(columns.has(undefined)).toBe(false);
    expect(run.stdout).toContain('--read-access <anonymous|token>');
  });

  it.each([[['serve', '--help']], [['serve', '-h']], [['serve', '--port', '1', '--help']]])(
    '%j has its own text: every flag with what it takes, its default and its environment variable',
    async (args) => {
      const run = await runRegistryCli(args);
      expect(run.code).toBe(0);
      expect(run.stdout).toMatch(/^Usage: pkg-registry serve \[options\]/);
      expect(run.stdout).not.toContain('<value>');
      for (const spec of SETTINGS) {
        expect(run.stdout).toContain(`  ${spec.flag} <`);
        expect(run.stdout).toContain(envName(spec));
      }
      expect(run.stdout).toContain('--port <0-65535>');
      expect(run.stdout).toContain('--signup <true|false>');
      expect(run.stdout).toContain('--log-level <fatal|error|warn|info|debug|trace|silent>');
      expect(run.stdout.replace(/\s+/g, ' ')).toContain('Default: 4873. Environment: PKG_REGISTRY_PORT.');
    },
  );

  it('--version prints the version of the package', async () => {
    const run = await runRegistryCli(['--version']);
    expect(run.code).toBe(0);
    expect(run.stdout.trim()).toBe(JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')).version);
  });
});

describe('npx pkg-registry serve', () => {
  it('serves from the repository root after npm install', async () => {
    const server = await spawnRegistry({
      cwd: repoRoot,
      command: { file: 'npx', args: ['--no-install', 'pkg-registry', 'serve'] },
    });
    try {
      const ping = await request(`${server.url}/-/ping`);
      expect(ping.status).toBe(200);
      expect(ping.body).toEqual({});
      await server.stop();
      // The server itself (behind npm exec and sh) shut down cleanly on the group's SIGTERM.
      expect(server.logEntries().some((e) => e.msg === 'stopped')).toBe(true);
    } finally {
      await server.cleanup();
    }
  });
});
