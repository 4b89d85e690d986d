import { parse, printParseErrorCode, type ParseError } from 'jsonc-parser';

const REASONS: Record<string, string> = {
  InvalidSymbol: 'unexpected character',
  InvalidNumberFormat: 'invalid number',
  PropertyNameExpected: 'expected a property name in double quotes',
  ValueExpected: 'expected a value',
  ColonExpected: "expected ':'",
  CommaExpected: "expected ','",
  CloseBraceExpected: "expected '}'",
  CloseBracketExpected: "expected ']'",
  EndOfFileExpected: 'unexpected text after the end of the JSON document',
  InvalidCommentToken: 'comments are not allowed in JSON',
  UnexpectedEndOfComment: 'comments are not allowed in JSON',
  UnexpectedEndOfString: 'unterminated string',
  UnexpectedEndOfNumber: 'unterminated number',
  InvalidUnicode: 'invalid \\u escape',
  InvalidEscapeCharacter: 'invalid escape in a string',
  InvalidCharacter: 'a control character in a string',
};

/** Line and column (both from 1) of `offset` in `text`. */
export function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  return { line, column: offset - (before.lastIndexOf('\n') + 1) + 1 };
}

/**
 * Why `text` is not strict JSON, with where, as a person finds it in an editor
 * (`expected ',' at line 3, column 3`); null when it is JSON. JSON.parse says only a byte
 * position, and not always that.
 */
export function jsonSyntaxProblem(text: string): string | null {
  try {
    JSON.parse(text);
    return null;
  } catch {
    // described below
  }
  const errors: ParseError[] = [];
  parse(text, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
  const first = errors[0];
  if (!first) return text.trim() === '' ? 'the file is empty' : 'it is not valid JSON';
  const { line, column } = lineAndColumn(text, first.offset);
  const code = printParseErrorCode(first.error);
  // jsonc-parser accepts a trailing comma only when told to; JSON does not.
  return `${REASONS[code] ?? code} at line ${line}, column ${column}`;
}
