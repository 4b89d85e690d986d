import { ClientError } from './errors/client-errors.js';

/** A positive integer option value (`--limit 5`), or a usage error naming the flag. */
export function positiveInteger(flag: string, max = Number.MAX_SAFE_INTEGER): (value: string) => number {
  return (value: string) => {
    const n = Number(value);
    if (!/^\d+$/.test(value.trim()) || n < 1 || n > max) {
      throw new ClientError('INVALID_NUMBER_FLAG', { flag, value, max });
    }
    return n;
  };
}
