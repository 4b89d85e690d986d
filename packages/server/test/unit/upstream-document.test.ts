import { describe, expect, it } from 'vitest';
import type { PackageDocument } from '@pkg/protocol';
import { isCachedCopy, mergeCached, upstreamDocument } from '../../src/services/uplinks/upstream-document.js';

const NAME = 'com.upstream.kit';
/** Where the upstream document was fetched (a registry under a path). */
const DOCUMENT_URL = `https://upstream.example/npm/${NAME}`;
const dist = (version: string, integrity = `sha512-${version}`) => ({
  tarball: `https://upstream.example/${NAME}/-/${NAME}-${version}.tgz`,
  integrity,
  shasum: 'abc',
});
const raw = (versions: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  _id: NAME,
  _rev: '9-upstream',
  name: NAME,
  'dist-tags': { latest: '1.1.0', beta: '9.9.9' },
  versions,
  time: {
    created: '2025-01-01T00:00:00.000Z',
    '1.0.0': '2025-01-01T00:00:00.000Z',
    '1.1.0': '2025-02-01T00:00:00.000Z',
    evil: 3,
  },
  maintainers: [{ name: 'someone', email: 's@example.com' }, 'not a person'],
  readme: '# kit',
  users: { a: true },
  _attachments: { x: 1 },
  ...extra,
});

function doc(value: unknown): PackageDocument {
  if (typeof value === 'string') throw new Error(value);
  return value as PackageDocument;
}

describe('upstreamDocument', () => {
  it('keeps what the protocol defines and the versions it can verify', () => {
    const kept = doc(
      upstreamDocument(
        NAME,
        raw({
          '1.0.0': { name: 'other.name', version: 'x', dist: dist('1.0.0'), unity: '2021.3' },
          '1.1.0': { name: NAME, version: '1.1.0', dist: dist('1.1.0') },
          '2.0.0': { name: NAME, version: '2.0.0', dist: { tarball: 'relative/path.tgz', integrity: 'sha512-x' } },
          '3.0.0': { name: NAME, version: '3.0.0', dist: { tarball: 'https://upstream.example/x.tgz' } },
          'not-semver': { name: NAME, version: 'not-semver', dist: dist('1.0.0') },
          '4.0.0': { name: NAME, version: '4.0.0', dist: { tarball: 'javascript:alert(1)', integrity: 'sha512-x' } },
          '5.0.0': { name: NAME, version: '5.0.0', dist: { integrity: 'sha512-x' } },
        }),
        DOCUMENT_URL,
      ),
    );
    expect(Object.keys(kept.versions)).toEqual(['1.0.0', '1.1.0', '2.0.0']);
    // A relative tarball is resolved like a link in the document.
    expect(kept.versions['2.0.0']!.dist.tarball).toBe('https://upstream.example/npm/relative/path.tgz');
    expect(kept.versions['1.0.0']).toMatchObject({ name: NAME, version: '1.0.0', unity: '2021.3' });
    expect(kept['dist-tags']).toEqual({ latest: '1.1.0' });
    expect(kept.time).toEqual({
      created: '2025-01-01T00:00:00.000Z',
      '1.0.0': '2025-01-01T00:00:00.000Z',
      '1.1.0': '2025-02-01T00:00:00.000Z',
    });
    expect(kept.maintainers).toEqual([{ name: 'someone', email: 's@example.com' }]);
    expect(kept.readme).toBe('# kit');
    expect(kept).not.toHaveProperty('users');
    expect(kept).not.toHaveProperty('_attachments');
    expect(kept._id).toBe(NAME);
    expect(isCachedCopy(kept)).toBe(true);
  });

  it('names the problem of a document that is not of the package', () => {
    expect(upstreamDocument(NAME, [], DOCUMENT_URL)).toBe('the document is not a JSON object');
    expect(upstreamDocument(NAME, { name: 'com.other.kit' }, DOCUMENT_URL)).toBe(
      "the document is of 'com.other.kit', not 'com.upstream.kit'",
    );
  });
});

describe('mergeCached', () => {
  const cached = doc(
    upstreamDocument(
      NAME,
      raw({ '1.0.0': { dist: dist('1.0.0', 'sha512-first') }, '1.1.0': { dist: dist('1.1.0') } }),
      DOCUMENT_URL,
    ),
  );

  it('keeps cached versions as they were, adds new ones, and keeps versions the upstream dropped', () => {
    const fresh = doc(
      upstreamDocument(
        NAME,
        raw(
          { '1.0.0': { dist: dist('1.0.0', 'sha512-republished') }, '1.2.0': { dist: dist('1.2.0') } },
          { 'dist-tags': { latest: '1.2.0' }, description: 'new text' },
        ),
        DOCUMENT_URL,
      ),
    );
    const merged = mergeCached(cached, fresh);
    expect(Object.keys(merged.versions)).toEqual(['1.0.0', '1.1.0', '1.2.0']);
    expect(merged.versions['1.0.0']!.dist.integrity).toBe('sha512-first');
    expect(merged['dist-tags']).toEqual({ latest: '1.2.0' });
    expect(merged.description).toBe('new text');
    expect(merged.time['1.0.0']).toBe('2025-01-01T00:00:00.000Z');
  });

  it('tells a local document (relative tarball paths) from a cached copy', () => {
    const local = {
      ...cached,
      versions: { '1.0.0': { ...cached.versions['1.0.0']!, dist: { ...dist('1.0.0'), tarball: `${NAME}/-/${NAME}-1.0.0.tgz` } } },
    };
    expect(isCachedCopy(local)).toBe(false);
  });
});
