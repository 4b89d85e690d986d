import { buildTarball, sha1Hex, sha512Integrity, type TarEntry } from './tarballs.js';

export interface PublishBodyOptions {
  /** Extra fields of the version's package.json (description, unity, dependencies, ...). */
  manifest?: Record<string, unknown>;
  files?: TarEntry[];
  tag?: string;
  /** Use these tarball bytes instead of building them. */
  tarball?: Buffer;
  readme?: string;
}

/** The JSON body `npm publish` sends for one version: the document, the version and the attachment. */
export function publishBody(name: string, version: string, options: PublishBodyOptions = {}) {
  const packageJson = { name, version, description: `${name} test package`, ...options.manifest };
  const tarball = options.tarball ?? buildTarball(packageJson, options.files);
  const tag = options.tag ?? 'latest';
  const filename = `${name}-${version}.tgz`;
  const body = {
    _id: name,
    name,
    description: packageJson.description,
    'dist-tags': { [tag]: version },
    versions: {
      [version]: {
        ...packageJson,
        _id: `${name}@${version}`,
        readme: options.readme ?? `# ${name}\n`,
        dist: {
          integrity: sha512Integrity(tarball),
          shasum: sha1Hex(tarball),
          tarball: `http://localhost/${name}/-/${filename}`,
        },
      },
    },
    readme: options.readme ?? `# ${name}\n`,
    _attachments: {
      [filename]: { content_type: 'application/octet-stream', data: tarball.toString('base64'), length: tarball.length },
    },
  };
  return { body, tarball, filename };
}
