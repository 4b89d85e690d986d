import { ProtocolError } from '@pkg/protocol';

/** Deeper than any document npm sends (a package.json nests a handful of levels). */
export const MAX_JSON_DEPTH = 64;

/** The one refusal of a body nested too deep, whether parsed whole or streamed. */
export function jsonTooDeep(): ProtocolError {
  return new ProtocolError('BAD_REQUEST', `The JSON body is nested more than ${MAX_JSON_DEPTH} levels deep`);
}

/** Iterative, so that a hostile body cannot overflow the stack of the check itself. */
export function depthExceeds(value: object, max: number): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (depth > max) return true;
    const children = Array.isArray(node) ? node : Object.values(node as object);
    for (const child of children) {
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
    }
  }
  return false;
}
