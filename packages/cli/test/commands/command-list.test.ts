import { readdir } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../../src/commands/index.js';
import { run, testDeps } from '../support/deps.js';

const commandFiles = (await readdir(new URL('../../src/commands/', import.meta.url)))
  .filter((f) => f.endsWith('.ts') && f !== 'index.ts' && f !== 'types.ts')
  .map((f) => f.replace(/\.ts$/, ''));

describe('the command list', () => {
  it('lists every command file exactly once, by its name', () => {
    expect(COMMANDS.map((c) => c.name).sort()).toEqual([...commandFiles].sort());
    expect(new Set(COMMANDS.map((c) => c.name)).size).toBe(COMMANDS.length);
  });

  for (const command of COMMANDS) {
    describe(command.name, () => {
      it('has a summary, and a description for every argument and option', () => {
        expect(command.summary.length).toBeGreaterThan(10);
        expect(typeof command.run).toBe('function');
        for (const arg of command.arguments ?? []) expect(arg.description.length).toBeGreaterThan(3);
        for (const option of command.options ?? []) expect(option.description.length).toBeGreaterThan(3);
      });

      it('documents every flag in `pkg <command> --help`, exit 0', async () => {
        const deps = await testDeps();
        const { code, stdout } = await run(deps, [command.name, '--help']);
        expect(code).toBe(0);
        expect(stdout).toContain(`Usage: pkg ${command.name}`);
        for (const option of command.options ?? []) {
          const long = /--[a-z][a-z-]*/.exec(option.flags)![0];
          expect(stdout).toContain(long);
        }
        expect(stdout).toContain('--json');
        for (const arg of command.arguments ?? []) expect(stdout).toContain(arg.name);
      });

      it('rejects an unknown flag with exit 2', async () => {
        const deps = await testDeps();
        const { code, stderr, stdout } = await run(deps, [command.name, '--no-such-flag']);
        expect(code).toBe(2);
        expect(stdout).toBe('');
        expect(stderr).toMatch(/^Error: Unknown option '--no-such-flag'/);
      });
    });
  }

  it('lists every command with its summary in `pkg --help`', async () => {
    const deps = await testDeps();
    const { code, stdout } = await run(deps, ['--help']);
    expect(code).toBe(0);
    for (const command of COMMANDS) expect(stdout).toContain(command.name);
    expect(stdout).toContain('Exit codes: 0 success, 1 the operation failed, 2 wrong usage.');
  });

  it('answers an unknown command with exit 2, in JSON when asked', async () => {
    const deps = await testDeps();
    const { code, stdout, stderr } = await run(deps, ['frobnicate', '--json']);
    expect(code).toBe(2);
    expect(stderr).toBe('');
    const body = JSON.parse(stdout);
    expect(body).toMatchObject({ success: false, code: 'USAGE' });
    expect(body.error).toMatch(/unknown command 'frobnicate'/i);
  });

  it('prints the version with --version', async () => {
    const deps = await testDeps();
    expect(await run(deps, ['--version'])).toEqual({ code: 0, stdout: '0.0.0-test\n', stderr: '' });
  });

  it('prints the same help as `pkg --help` when no command is given', async () => {
    const alone = await run(await testDeps(), []);
    expect(alone.stdout).toContain('Usage: pkg');
    expect(alone).toEqual(await run(await testDeps(), ['--help']));
  });
});
