import semver from 'semver';
import { ProtocolError } from '@pkg/protocol';

const TAG = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/**
 * A dist-tag name, or 422. Like npm, a tag that is also a semver range is refused: `npm install
 * name@1.x` must never mean a tag.
 */
export function checkTagName(tag: string): string {
  if (!TAG.test(tag)) {
    throw new ProtocolError(
      'VALIDATION_ERROR',
      `Invalid dist-tag '${tag.slice(0, 80)}': use 1-128 letters, digits, '.', '_' or '-', starting with a letter or digit`,
    );
  }
  if (semver.validRange(tag) !== null) {
    throw new ProtocolError('VALIDATION_ERROR', `Invalid dist-tag '${tag}': a tag name must not be a valid semver range`);
  }
  return tag;
}
