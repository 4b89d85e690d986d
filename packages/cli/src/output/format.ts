/** Shared pieces of the human output. */
export const SEPARATOR = '─'.repeat(40);

/** `text` with `indent` spaces before every line. */
export function indent(text: string, spaces = 2): string {
  const pad = ' '.repeat(spaces);
  return text
    .split('\n')
    .map((line) => (line.length > 0 ? pad + line : line))
    .join('\n');
}

/** Author as free text: a string as given, or `name <email>` from an npm person object. */
export function personText(person: unknown): string {
  if (typeof person === 'string') return person;
  if (person && typeof person === 'object') {
    const { name, email } = person as { name?: unknown; email?: unknown };
    if (typeof name === 'string') return typeof email === 'string' && email ? `${name} <${email}>` : name;
  }
  return '';
}
