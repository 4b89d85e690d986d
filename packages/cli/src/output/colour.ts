/**
 * Whether and how output is coloured. On a terminal it is; `NO_COLOR` (no-color.org), a pipe or
 * a file, `TERM=dumb` and `--json` turn it off; `FORCE_COLOR` (as Node and most tools read it:
 * anything but `0` or `false`) turns it on anywhere but in JSON.
 */
export function colourEnabled(
  env: Readonly<Record<string, string | undefined>>,
  stream: { isTTY?: boolean },
  json: boolean,
): boolean {
  if (json) return false;
  const force = env.FORCE_COLOR;
  if (force !== undefined) return force !== '0' && force.toLowerCase() !== 'false';
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  return stream.isTTY === true && env.TERM !== 'dumb';
}

/** What a line means, which decides its colour. */
export type LineStyle = 'error' | 'warning' | 'success' | 'heading' | 'muted' | 'hint';

const SGR: Record<LineStyle, [string, string]> = {
  error: ['\x1b[31m', '\x1b[39m'],
  warning: ['\x1b[33m', '\x1b[39m'],
  success: ['\x1b[32m', '\x1b[39m'],
  heading: ['\x1b[1m', '\x1b[22m'],
  muted: ['\x1b[2m', '\x1b[22m'],
  hint: ['\x1b[36m', '\x1b[39m'],
};

export function paint(style: LineStyle, text: string, enabled: boolean): string {
  if (!enabled || text === '') return text;
  const [open, close] = SGR[style];
  return `${open}${text}${close}`;
}
