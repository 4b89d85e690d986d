import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import type { Config } from './config.js';

/**
 * What start-up is about to create (the data directory, the database file, the tarball
 * directory): a start that fails removes exactly what did not exist before it, so a failed
 * start leaves the machine as it found it.
 */
export class CreatedPaths {
  readonly #absent: string[];

  private constructor(absent: string[]) {
    this.#absent = absent;
  }

  static watch(config: Pick<Config, 'data' | 'database' | 'storage'>): CreatedPaths {
    const candidates = [config.data];
    if (config.database.startsWith('sqlite:')) {
      const file = config.database.slice('sqlite:'.length);
      candidates.push(file, `${file}-wal`, `${file}-shm`);
    }
    if (!config.storage.startsWith('s3://')) candidates.push(config.storage);
    const absent = new Set<string>();
    for (const candidate of candidates) {
      const top = topmostAbsent(candidate);
      if (top !== undefined) absent.add(top);
    }
    return new CreatedPaths([...absent]);
  }

  async remove(): Promise<void> {
    for (const entry of this.#absent) await rm(entry, { recursive: true, force: true }).catch(() => undefined);
  }
}

/** The highest ancestor (or the path itself) that does not exist; undefined when the path exists. */
function topmostAbsent(target: string): string | undefined {
  if (existsSync(target)) return undefined;
  let top = target;
  while (path.dirname(top) !== top && !existsSync(path.dirname(top))) top = path.dirname(top);
  return top;
}
