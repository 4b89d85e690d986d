import { readFileSync } from 'node:fs';
import { ConfigError, type Config } from './config.js';

/** The PEM certificate and key named by tlsCert/tlsKey, or undefined when HTTPS is not configured. */
export function readTlsFiles(config: Pick<Config, 'tlsCert' | 'tlsKey'>): { cert: Buffer; key: Buffer } | undefined {
  if (!config.tlsCert || !config.tlsKey) return undefined;
  return { cert: readPem(config.tlsCert, 'tlsCert'), key: readPem(config.tlsKey, 'tlsKey') };
}

function readPem(file: string, setting: string): Buffer {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (err) {
    throw new ConfigError(`setting '${setting}': cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`);
  }
  if (!bytes.toString('latin1').includes('-----BEGIN ')) {
    throw new ConfigError(`setting '${setting}': ${file} is not a PEM file`);
  }
  return bytes;
}
