/** The path without its query string and cut short: never echo a token from a URL. */
export function safePath(url: string): string {
  const pathOnly = url.split('?')[0] ?? '';
  const redacted = pathOnly.replace(/\/-\/user\/token\/[^/]+/, '/-/user/token/[redacted]');
  return redacted.length > 200 ? `${redacted.slice(0, 200)}…` : redacted;
}
