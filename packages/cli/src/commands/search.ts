import { positiveInteger } from '../cli-options.js';
import { ClientError } from '../errors/client-errors.js';
import { REGISTRY_OPTION, type Command } from './types.js';

interface SearchOptions {
  limit: number;
  detail?: boolean;
  registry?: string;
}

/** The registry serves at most this many results per request. */
const MAX_LIMIT = 250;

export const search: Command<SearchOptions> = {
  name: 'search',
  summary: 'Search packages by name, description, keyword or author',
  description:
    'Search the registry for packages whose name, description, keywords or author contain <term> (partial matches count).',
  arguments: [
    {
      name: 'term',
      description: 'package name, description word or keyword (several words are searched as one phrase)',
      variadic: true,
    },
  ],
  options: [
    {
      flags: '--limit <number>',
      description: `maximum number of results shown (1-${MAX_LIMIT})`,
      default: 10,
      parse: positiveInteger('--limit', MAX_LIMIT),
    },
    { flags: '--detail', description: 'show license, repository, downloads, last update and dependencies of each result' },
    { ...REGISTRY_OPTION, description: 'registry to search (default: the `registry` setting)' },
  ],
  examples: ['pkg search input', 'pkg search com.vendor --limit 50', 'pkg search physics --detail', 'pkg search audio --json'],
  async run(ctx, { args, options }) {
    const words = Array.isArray(args.term) ? args.term : args.term ? [args.term] : [];
    const term = words.join(' ').trim();
    if (term === '') throw new ClientError('SEARCH_TERM_EMPTY');
    const registry = await ctx.registryUrl(options.registry);
    const client = await ctx.registry(registry);
    const response = await client.search(term, options.limit, 0);
    if (response.objects.length === 0) {
      throw new ClientError('NO_PACKAGES_FOUND', { term });
    }
    const { searchReport, packageDetail } = await import('../output/search-report.js');
    const shown = response.objects.slice(0, options.limit);
    let details;
    if (options.detail) {
      // License, repository and dependencies are not part of search results: read each document.
      const docs = await Promise.all(shown.map((o) => client.packument(o.package.name)));
      details = new Map(docs.map((doc, i) => [shown[i]!.package.name, packageDetail(doc, shown[i]!.package.version)]));
    }
    return searchReport({ term, response, limit: options.limit, ...(details ? { details } : {}) });
  },
};
