import { supportedEngines, unitySignatureOf, type PackageDocument, type VersionRecord } from '@pkg/protocol';
import { heading, muted, type CommandResult, type TextLine } from './reporter.js';
import { personText, SEPARATOR } from './format.js';

const ENGINE_FIELDS = ['godot', 'godotMax', 'unreal', 'unrealMax'] as const;
const ENGINE_NAMES = { unity: 'Unity', godot: 'Godot', unreal: 'Unreal Engine' } as const;

/** Versions listed in text; --json always has them all. */
const VERSIONS_SHOWN = 30;

/** `pkg info` output for one version of a package document. */
export function infoReport(doc: PackageDocument, record: VersionRecord, versions: string[]): CommandResult {
  const distTags = doc['dist-tags'] ?? {};
  const dependencies = record.dependencies ?? {};
  const unity = typeof record.unity === 'string' ? `${record.unity}${record.unityRelease ? `.${record.unityRelease}` : ''}` : '';
  const published = doc.time?.[record.version] ?? '';
  const json = {
    name: record.name ?? doc.name,
    version: record.version,
    description: record.description ?? doc.description ?? '',
    displayName: record.displayName ?? '',
    license: record.license ?? '',
    author: personText(record.author),
    unity: record.unity ?? null,
    unityRelease: record.unityRelease ?? null,
    distTags,
    versions,
    dependencies,
    keywords: record.keywords ?? [],
    tarball: record.dist?.tarball ?? '',
    integrity: record.dist?.integrity ?? '',
    published,
    // Unity's own package signature (package/.attestation.p7m), as the registry recorded it.
    ...(unitySignatureOf(record) !== undefined ? { unitySignature: unitySignatureOf(record) } : {}),
    ...(record.deprecated ? { deprecated: record.deprecated } : {}),
    // Godot and Unreal fields only when the version names them: Unity packages read as before.
    ...Object.fromEntries(ENGINE_FIELDS.filter((f) => typeof record[f] === 'string').map((f) => [f, record[f]])),
  };
  const otherEngines = supportedEngines(record).filter((e) => e.engine !== 'unity');

  const shownVersions = versions.length > VERSIONS_SHOWN ? versions.slice(-VERSIONS_SHOWN) : versions;
  const text: TextLine[] = [
    heading(`${json.name}@${json.version}${json.displayName ? ` (${json.displayName})` : ''}`),
    muted(SEPARATOR),
    json.description || '(no description)',
    '',
    `Latest: ${distTags.latest ?? '(none)'}`,
    `Dist-tags: ${
      Object.entries(distTags)
        .map(([tag, v]) => `${tag}: ${v}`)
        .join(', ') || '(none)'
    }`,
    `Versions: ${versions.length > VERSIONS_SHOWN ? `... ${versions.length - VERSIONS_SHOWN} older, ` : ''}${shownVersions.join(', ')}`,
    `License: ${json.license || '(none)'}`,
    `Author: ${json.author || '(unknown)'}`,
    `Minimum Unity version: ${unity || (supportedEngines(record).some((e) => e.engine === 'unity') ? '(any)' : '(not a Unity package)')}`,
    ...otherEngines.map(
      (e) =>
        `${ENGINE_NAMES[e.engine]}: ${e.max === undefined ? `${e.min} or newer` : e.max === e.min ? `${e.min} only` : `${e.min} to ${e.max}`}`,
    ),
    ...(json.keywords.length ? [`Keywords: ${json.keywords.join(', ')}`] : []),
    ...(published ? [`Published: ${published}`] : []),
    ...(record.deprecated ? [`Deprecated: ${record.deprecated}`] : []),
    'Dependencies:',
    ...(Object.keys(dependencies).length ? Object.entries(dependencies).map(([n, v]) => `  ${n}@${v}`) : ['  (none)']),
    `Tarball: ${json.tarball}`,
    `Integrity: ${json.integrity}`,
    ...unitySignatureLines(record),
  ];
  return { json, text };
}

function unitySignatureLines(record: VersionRecord): string[] {
  const signature = unitySignatureOf(record);
  if (signature === undefined) return [];
  if (signature === null)
    return ['Unity signature: unsigned (Unity 6.3 and later show it as unsigned; 6.7 blocks unsigned packages by default)'];
  return [`Unity signature: signed${signature.signer ? ` by ${signature.signer}` : ' (signer not readable)'}`];
}
