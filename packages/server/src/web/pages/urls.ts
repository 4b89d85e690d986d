/** Paths of the web interface's pages (package names are reverse-DNS: nothing to encode). */
export const packagePath = (name: string, version?: string): string =>
  `/-/web/package/${encodeURIComponent(name)}${version ? `?version=${encodeURIComponent(version)}` : ''}`;

export const searchPath = (query: string, page = 1): string =>
  `/-/web/search?q=${encodeURIComponent(query)}${page > 1 ? `&page=${page}` : ''}`;

/** The advisories page of a package: its list, and the forms of those who may manage them. */
export const advisoriesPath = (name: string): string => `/-/web/package/${encodeURIComponent(name)}/advisories`;
