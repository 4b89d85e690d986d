import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tmpUnityProject, type TmpUnityProject } from '@pkg/testkit';
import { COMMANDS } from '../../src/commands/index.js';
import { makeHome, PKG_BIN, runPkg, type Home } from '../support/spawn.js';

const exec = promisify(execFile);
let home: Home;
let bin: string;
let project: TmpUnityProject;

beforeAll(async () => {
  home = await makeHome();
  // `pkg` on the PATH, as the scripts call it.
  bin = await mkdtemp(path.join(tmpdir(), 'pkg-completion-bin-'));
  await writeFile(path.join(bin, 'pkg'), `#!/bin/sh\nexec "${process.execPath}" "${PKG_BIN}" "$@"\n`, { mode: 0o755 });
  project = await tmpUnityProject({
    'Packages/manifest.json': {
      dependencies: { 'com.vendor.input': '1.0.0', 'com.vendor.audio': '2.0.0', 'com.unity.ugui': '1.0.0' },
    },
  });
});
afterAll(async () => {
  await rm(bin, { recursive: true, force: true });
  await rm(home.dir, { recursive: true, force: true });
  await project?.remove();
});

/** What bash offers for the words typed so far (the last one is being completed). */
async function bashCompletes(words: string[]): Promise<string[]> {
  const script = (await runPkg(['completion', 'bash'], { home })).stdout;
  const file = path.join(bin, 'pkg.bash');
  await writeFile(file, script);
  const { stdout } = await exec(
    'bash',
    [
      '-c',
      `source ${file}; COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _pkg_completion; printf '%s\\n' "\${COMPREPLY[@]}"`,
    ],
    { cwd: project.dir, env: { ...home.env, PATH: `${bin}${path.delimiter}${process.env.PATH}` } },
  );
  return stdout.split('\n').filter(Boolean).sort();
}

describe('pkg completion', () => {
  it('bash: completes commands, a command’s flags, and package names from the project’s manifest', async () => {
    expect(await bashCompletes(['pkg', ''])).toEqual([...COMMANDS.map((c) => c.name), '--help', '--version'].sort());
    expect(await bashCompletes(['pkg', 'up'])).toEqual(['update']);
    expect(await bashCompletes(['pkg', 'update', '--d'])).toEqual(['--dry-run']);
    expect(await bashCompletes(['pkg', 'uninstall', 'com.vendor.'])).toEqual(['com.vendor.audio', 'com.vendor.input']);
    expect(await bashCompletes(['pkg', 'completion', ''])).toEqual(['bash', 'fish', 'powershell', 'zsh']);
  });

  it('prints a script for zsh, fish and PowerShell naming every command and flag', async () => {
    for (const shell of ['zsh', 'fish', 'powershell']) {
      const { code, stdout } = await runPkg(['completion', shell], { home });
      expect(code).toBe(0);
      for (const command of COMMANDS) {
        expect(stdout, `${shell}: ${command.name}`).toContain(command.name);
        for (const option of command.options ?? []) {
          const long = /--([a-z][a-z-]*)/.exec(option.flags)![shell === 'fish' ? 1 : 0]!;
          expect(stdout, `${shell}: ${command.name} ${long}`).toContain(long);
        }
      }
      expect(stdout).toContain('pkg completion --packages');
    }
  });

  it('lists the manifest’s package names with --packages, and nothing outside a project', async () => {
    const inside = await runPkg(['completion', '--packages'], { home, cwd: project.dir });
    expect(inside).toMatchObject({ code: 0, stderr: '' });
    expect(inside.stdout).toBe('com.unity.ugui\ncom.vendor.audio\ncom.vendor.input\n');
    const outside = await runPkg(['completion', '--packages'], { home, cwd: home.dir });
    expect(outside).toEqual({ code: 0, stdout: '', stderr: '' });
  });

  it('refuses an unknown shell with exit 2', async () => {
    const { code, stderr } = await runPkg(['completion', 'tcsh'], { home });
    expect(code).toBe(2);
    expect(stderr).toMatch(/^Error: Unknown shell 'tcsh'\nHint: .*bash, zsh, fish, powershell/);
  });
});
