/** A value as a person reads it in a message or a log line: strings bare, the rest as JSON. */
export function valueText(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return value;
    case 'number':
    case 'boolean':
    case 'bigint':
      return String(value);
    default:
      return JSON.stringify(value) ?? typeof value;
  }
}
