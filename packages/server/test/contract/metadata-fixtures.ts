import type { PackageDocument } from '@pkg/protocol';
import type { StoredPackage, TenantRecord, TokenRecord, UserRecord } from '../../src/storage/ports.js';

export function user(name: string, overrides: Partial<UserRecord> = {}): UserRecord {
  return {
    name,
    email: `${name}@example.com`,
    passwordHash: 'scrypt$16384$8$1$c2FsdA==$aGFzaA==',
    createdAt: '2024-05-06T07:08:09.010Z',
    disabled: false,
    ...overrides,
  };
}

export function token(hash: string, userName: string): TokenRecord {
  return { hash, user: userName, createdAt: '2024-05-06T07:08:09.010Z', expiresAt: null, readonly: false };
}

export function tenant(name: string, settings: TenantRecord['settings'] = {}, incarnation = `${name}-first`): TenantRecord {
  return { name, incarnation, createdAt: '2024-05-06T07:08:09.010Z', settings };
}

export function stored(name: string, versions: string[]): StoredPackage {
  const document: PackageDocument = {
    _id: name,
    _rev: `${versions.length}-0123456789abcdef`,
    name,
    description: `${name} for tests`,
    'dist-tags': versions.length ? { latest: versions[0]! } : {},
    versions: {},
    time: {},
    maintainers: [{ name: 'ada', email: 'ada@example.com' }],
  };
  for (const version of versions) {
    document.versions[version] = {
      name,
      version,
      dist: { tarball: `${name}/-/${name}-${version}.tgz`, integrity: 'sha512-AAAA', shasum: '00' },
    };
  }
  return { document, publishedVersions: [...versions], unpublished: false };
}

export function addVersion(current: StoredPackage | undefined, name: string, version: string): StoredPackage {
  const base = current ?? stored(name, []);
  const next = structuredClone(base);
  next.document.versions[version] = stored(name, [version]).document.versions[version]!;
  next.document['dist-tags'].latest = version;
  next.publishedVersions.push(version);
  return next;
}
