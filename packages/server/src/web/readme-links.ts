import path from 'node:path';

/** Where a readme's relative links and images point: the package's folder in its repository. */
export interface ReadmeSource {
  /** The repository's browsable URL (`https://github.com/acme/widgets`), if known. */
  repository: string | undefined;
  /** The package's folder inside it (`repository.directory`), '' for the root. */
  directory: string;
}

/** How each hosting service shows a file (`blob`) and serves its bytes (`raw`), on the default branch. */
const HOSTS: Record<string, { blob: string; raw: string }> = {
  'github.com': { blob: 'blob/HEAD', raw: 'raw/HEAD' },
  'gitlab.com': { blob: '-/blob/HEAD', raw: '-/raw/HEAD' },
  'bitbucket.org': { blob: 'src/HEAD', raw: 'raw/HEAD' },
  'codeberg.org': { blob: 'src/branch/HEAD', raw: 'raw/branch/HEAD' },
};

/**
 * A readme link or image as the page should use it: absolute URLs and in-page anchors as they
 * are; a relative path (`CHANGELOG.md`, `./docs/a.png`, `/Documentation~/guide.md`) resolved
 * against the repository, as the hosting service shows the file (links) or serves it (images);
 * undefined when it cannot be resolved (no repository, an unknown host, a path leaving the
 * repository), since the registry itself has no such page.
 */
export function resolveReadmeUrl(url: string, kind: 'link' | 'image', source: ReadmeSource): string | undefined {
  const trimmed = url.trim();
  if (trimmed === '' || trimmed.startsWith('#')) return trimmed === '' ? undefined : trimmed;
  if (/^[a-z][a-z0-9+.-]*:/i.test(trimmed) || trimmed.startsWith('//')) return trimmed;
  const repository = source.repository && repositoryBase(source.repository);
  if (!repository) return undefined;
  const [, filePath = '', suffix = ''] = /^([^?#]*)(.*)$/.exec(trimmed) ?? [];
  const joined = filePath.startsWith('/') ? filePath : `${source.directory}/${filePath}`;
  const normalized = path.posix.normalize(`/${joined}`).replace(/^\/+/, '');
  // `..` beyond the root is clamped by normalize on an absolute path; a path that asked for it is refused.
  if (climbsOut(joined)) return undefined;
  const encoded = normalized
    .split('/')
    .map((part) => encodeURIComponent(safeDecode(part)))
    .join('/');
  return `${repository.url}/${kind === 'image' ? repository.host.raw : repository.host.blob}/${encoded}${suffix}`;
}

function repositoryBase(repository: string): { url: string; host: { blob: string; raw: string } } | undefined {
  let parsed: URL;
  try {
    parsed = new URL(repository);
  } catch {
    return undefined;
  }
  const host = HOSTS[parsed.hostname.toLowerCase()];
  const parts = parsed.pathname.split('/').filter(Boolean);
  if (!host || !/^https?:$/.test(parsed.protocol) || parts.length < 2) return undefined;
  return { url: `https://${parsed.hostname.toLowerCase()}/${parts.join('/')}`, host };
}

function climbsOut(joined: string): boolean {
  let depth = 0;
  for (const part of joined.split('/')) {
    if (part === '..') depth--;
    else if (part !== '' && part !== '.') depth++;
    if (depth < 0) return true;
  }
  return false;
}

function safeDecode(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}
