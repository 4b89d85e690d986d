/**
 * Surgical edits of JSON text. A project manifest belongs to the user and to the engine's own
 * tooling: an edit must change the values it is asked to change and leave every other byte
 * alone (key order, indentation, line endings, compact arrays, final newline). So instead of
 * parse-and-stringify, each edit locates the node in the text and splices new text in, written
 * in the style the file already uses.
 */
import { parseTree, type Node } from 'jsonc-parser';

export type JsonPath = readonly (string | number)[];

/** How a JSON text is laid out: the indentation unit and the line ending. */
export interface JsonStyle {
  indent: string;
  eol: '\n' | '\r\n';
}

/** Where a new property goes among the existing keys of an object. */
export type InsertPosition = 'end' | 'sorted';

/** The indentation unit and line ending a JSON text uses (two spaces and LF when it has none). */
export function detectJsonStyle(text: string): JsonStyle {
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  // The first indented line holds one unit of indentation: it is a member of the root.
  const firstIndented = /\n([ \t]+)\S/.exec(text);
  return { indent: firstIndented?.[1] ?? '  ', eol };
}

/** Parses strict JSON text into a tree with offsets; throws on anything JSON.parse refuses. */
function parseStrict(text: string): Node {
  JSON.parse(text);
  const root = parseTree(text, [], { disallowComments: true, allowTrailingComma: false });
  if (!root) throw new Error('empty JSON document');
  return root;
}

function childOf(node: Node, segment: string | number): Node | undefined {
  if (typeof segment === 'number') {
    return node.type === 'array' ? node.children?.[segment] : undefined;
  }
  if (node.type !== 'object') return undefined;
  // The last occurrence wins, as in JSON.parse.
  const property = node.children?.findLast((p) => p.children?.[0]?.value === segment);
  return property?.children?.[1];
}

function lineStart(text: string, offset: number): number {
  const newline = text.lastIndexOf('\n', offset - 1);
  return newline + 1;
}

/** The whitespace at the start of the line on which `offset` lies. */
function lineIndent(text: string, offset: number): string {
  const start = lineStart(text, offset);
  return /^[ \t]*/.exec(text.slice(start, offset))![0];
}

function isMultiLine(text: string, node: Node): boolean {
  return text.slice(node.offset, node.offset + node.length).includes('\n');
}

/** Serializes `value` the way the surrounding text would: indented from `baseIndent`, or compact. */
function serialize(value: unknown, style: JsonStyle, baseIndent: string, multiLine: boolean): string {
  if (!multiLine) return compact(value);
  return JSON.stringify(value, null, style.indent)
    .split('\n')
    .join(style.eol + baseIndent);
}

/** `["a", "b"]` and `{"k": "v"}`: how people write JSON on one line. */
function compact(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(compact).join(', ')}]`;
  if (value !== null && typeof value === 'object') {
    const members = Object.entries(value).map(([k, v]) => `${JSON.stringify(k)}: ${compact(v)}`);
    return `{${members.join(', ')}}`;
  }
  return JSON.stringify(value);
}

function splice(text: string, offset: number, length: number, insert: string): string {
  return text.slice(0, offset) + insert + text.slice(offset + length);
}

/** The members of a container: property nodes of an object, value nodes of an array. */
function membersOf(container: Node): Node[] {
  return container.children ?? [];
}

/**
 * Inserts `memberText` (a `"key": value` pair or an array element, already serialized for
 * `childIndent`) into `container` at `index`.
 */
function insertMember(
  text: string,
  container: Node,
  index: number,
  memberText: (childIndent: string, multiLine: boolean) => string,
  style: JsonStyle,
): string {
  const members = membersOf(container);
  const multiLine = members.length === 0 ? true : isMultiLine(text, container);
  if (members.length === 0) {
    // `{}` or `{\n  }`: replace the inside of the brackets.
    const outer = lineIndent(text, container.offset);
    const inner = outer + style.indent;
    const open = container.offset + 1;
    const close = container.offset + container.length - 1;
    return splice(text, open, close - open, `${style.eol}${inner}${memberText(inner, true)}${style.eol}${outer}`);
  }
  if (!multiLine) {
    if (index < members.length) return splice(text, members[index]!.offset, 0, `${memberText('', false)}, `);
    const last = members[members.length - 1]!;
    return splice(text, last.offset + last.length, 0, `, ${memberText('', false)}`);
  }
  const childIndent = lineIndent(text, members[0]!.offset);
  if (index < members.length) {
    // Before the member now at `index`: the new line takes over that member's indentation.
    const next = members[index]!;
    return splice(text, next.offset, 0, `${memberText(childIndent, true)},${style.eol}${childIndent}`);
  }
  const last = members[members.length - 1]!;
  return splice(text, last.offset + last.length, 0, `,${style.eol}${childIndent}${memberText(childIndent, true)}`);
}

/** Removes the member at `index` of `container`, with its separator and line. */
function removeMember(text: string, container: Node, index: number): string {
  const members = membersOf(container);
  const member = members[index]!;
  if (members.length === 1) {
    const open = container.offset + 1;
    const close = container.offset + container.length - 1;
    return splice(text, open, close - open, '');
  }
  if (index < members.length - 1) {
    const next = members[index + 1]!;
    return splice(text, member.offset, next.offset - member.offset, '');
  }
  const previous = members[index - 1]!;
  const from = previous.offset + previous.length;
  return splice(text, from, member.offset + member.length - from, '');
}

function insertionIndex(container: Node, key: string, position: InsertPosition): number {
  const keys = membersOf(container).map((p) => String(p.children?.[0]?.value));
  if (position === 'sorted') {
    const sorted = keys.every((k, i) => i === 0 || keys[i - 1]! <= k);
    if (sorted) return keys.filter((k) => k < key).length;
  }
  return keys.length;
}

function locate(root: Node, path: JsonPath): { node?: Node; parent: Node; depth: number } {
  let parent = root;
  for (let depth = 0; depth < path.length; depth++) {
    const child = childOf(parent, path[depth]!);
    if (!child) return { parent, depth };
    if (depth === path.length - 1) return { node: child, parent, depth };
    parent = child;
  }
  return { node: root, parent: root, depth: 0 };
}

/**
 * Sets the value at `path`, creating the missing objects on the way. An existing value is
 * replaced in place; a new property goes at the end of its object, or in sorted position when
 * `position` is `sorted` and the object's keys are sorted already.
 */
export function setJsonValue(text: string, path: JsonPath, value: unknown, position: InsertPosition = 'end'): string {
  const style = detectJsonStyle(text);
  const root = parseStrict(text);
  if (path.length === 0) throw new Error('cannot replace the whole document');
  const { node, parent, depth } = locate(root, path);
  if (node) {
    return splice(
      text,
      node.offset,
      node.length,
      serialize(value, style, lineIndent(text, node.offset), keepsExpanded(text, node)),
    );
  }
  // Build the missing part of the path as one nested value and insert it where the path stops.
  let missing: unknown = value;
  for (let i = path.length - 1; i > depth; i--) missing = { [path[i] as string]: missing };
  const segment = path[depth]!;
  if (parent.type === 'object' && typeof segment === 'string') {
    const index = insertionIndex(parent, segment, position);
    return insertMember(
      text,
      parent,
      index,
      (indent, multi) => `${JSON.stringify(segment)}: ${serialize(missing, style, indent, multi)}`,
      style,
    );
  }
  if (parent.type === 'array' && typeof segment === 'number' && segment === membersOf(parent).length) {
    return insertMember(text, parent, segment, (indent, multi) => serialize(missing, style, indent, multi), style);
  }
  throw new Error(`cannot set ${JSON.stringify(path)}: ${parent.type} at ${JSON.stringify(path.slice(0, depth))}`);
}

/** A replaced object or array keeps the layout of the one it replaces: expanded or on one line. */
function keepsExpanded(text: string, node: Node): boolean {
  if (node.type !== 'object' && node.type !== 'array') return true;
  return isMultiLine(text, node) || membersOf(node).length === 0;
}

/** Appends `value` to the array at `path`. */
export function appendJsonElement(text: string, path: JsonPath, value: unknown): string {
  const root = parseStrict(text);
  const { node } = locate(root, path);
  if (!node || node.type !== 'array') throw new Error(`no array at ${JSON.stringify(path)}`);
  return setJsonValue(text, [...path, membersOf(node).length], value);
}

/** Removes the property or array element at `path`; a missing one is no change. */
export function removeJsonValue(text: string, path: JsonPath): string {
  const root = parseStrict(text);
  const { node, parent } = locate(root, path);
  if (!node || path.length === 0) return text;
  const members = membersOf(parent);
  const index = parent.type === 'object' ? members.findIndex((p) => p.children?.[1] === node) : members.indexOf(node);
  return removeMember(text, parent, index);
}
