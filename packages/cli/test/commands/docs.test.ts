import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../../src/commands/index.js';
import { CONFIG_KEYS } from '../../src/config/keys.js';
import { CLIENT_ERRORS } from '../../src/errors/client-errors.js';

const doc = await readFile(new URL('../../../../docs/cli.md', import.meta.url), 'utf8');

/** The text of `### pkg <name>` up to the next heading of the same or a higher level. */
function section(name: string): string {
  const start = doc.indexOf(`### pkg ${name}\n`);
  if (start < 0) return '';
  const rest = doc.slice(start + 1);
  const end = rest.search(/\n#{2,3} /);
  return end < 0 ? rest : rest.slice(0, end);
}

/** The row of docs/cli.md's error table for one catalogue entry: code, message, exit, hint. */
function errorRow(id: string, entry: { code?: string; exit: number; message: string; hint?: string }): string {
  const cell = (text: string) => `\`\` ${text.replace(/\|/g, '\\|')} \`\``;
  return `| \`${entry.code ?? id}\` | ${cell(entry.message)} | ${entry.exit} | ${entry.hint ? cell(entry.hint) : ''} |`;
}

describe('docs/cli.md', () => {
  for (const command of COMMANDS) {
    it(`documents pkg ${command.name} and each of its flags`, () => {
      const text = section(command.name);
      expect(text, `a "### pkg ${command.name}" section`).not.toBe('');
      for (const option of command.options ?? []) {
        const long = /--[a-z][a-z-]*/.exec(option.flags)![0];
        expect(text, `${command.name} ${long}`).toContain(long);
      }
    });
  }

  it('documents every config key', () => {
    for (const key of CONFIG_KEYS) expect(doc).toContain(`| \`${key.key}\` |`);
  });

  it('lists every entry of the error catalogue, as the catalogue words it, and nothing else', () => {
    const section = doc.split(/^## Errors$/m)[1]?.split(/^## /m)[0] ?? '';
    const documented = section.split('\n').filter((line) => /^\| `[A-Z_]+` \|/.test(line));
    const expected = Object.entries(CLIENT_ERRORS).map(([id, entry]) => errorRow(id, entry));
    expect(documented.filter((row) => !row.startsWith('| `INTERNAL` |'))).toEqual(expected);
    expect(documented.some((row) => row.startsWith('| `INTERNAL` |'))).toBe(true);
  });
});
