import { readFileSync } from 'node:fs';

let cached: string | undefined;

/** The version in this package's package.json (the release stamps the project's version there). */
export function registryRelease(): string {
  cached ??= (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
  return cached;
}
