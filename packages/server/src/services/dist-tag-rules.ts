import semver from 'semver';
import { ProtocolError } from '@pkg/protocol';

const TAG = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/**
 * A dist-tag name, or 422. Like npm, a tag that is also a semver range is refused: `npm install
 * name@1.x` must never mean a tag.
 */
const COMMON_TAGS = new Set(['latest', 'next', 'beta', 'alpha', 'rc', 'canary', 'preview', 'experimental', 'stable']);

export function checkTagName(tag: string): string {
  if (!TAG.test(tag)) {
    throw new ProtocolError(
      'VALIDATION_ERROR',
      `Invalid dist-tag '${tag.slice(0, 80)}': use 1-128 letters, digits, '.', '_' or '-', starting with a letter or digit`,
    );
  }
  // `latest` and the like are common and never ranges: skip semver's (slow) range parser.
  if (!COMMON_TAGS.has(tag) && semver.validRange(tag) !== null) {
    throw new ProtocolError('VALIDATION_ERROR', `Invalid dist-tag '${tag}': a tag name must not be a valid semver range`);
  }
  return tag;
}
