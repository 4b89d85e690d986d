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
    'Search the registry for packages whose name, description, keywords or author contain <term> (partial matches count). Inside a project, every registry the project names is searched (each with its credentials) and each result says where it comes from; a registry that cannot be asked is named in a warning, the others are shown, and the exit code is 1.',
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
    {
      ...REGISTRY_OPTION,
      description: 'registry to search (default: the `registry` setting, and inside a project every registry it names)',
    },
  ],
  examples: ['pkg search input', 'pkg search com.vendor --limit 50', 'pkg search physics --detail', 'pkg search audio --json'],
  async run(ctx, { args, options }) {
    const words = Array.isArray(args.term) ? args.term : args.term ? [args.term] : [];
    const term = words.join(' ').trim();
    if (term === '') throw new ClientError('SEARCH_TERM_EMPTY');
    const inEffect = await ctx.registryUrl(options.registry);
    const { projectView } = await import('../project/project-view.js');
    // Inside a project every registry it names is searched, as the editor lists each scope's packages.
    const view = options.registry === undefined ? await projectView(ctx, inEffect) : null;
    const registries = view ? view.registries : [inEffect];
    const { searchRegistries } = await import('../project/project-search.js');
    return searchRegistries(ctx, {
      term,
      limit: options.limit,
      detail: options.detail ?? false,
      registries,
      manifest: view?.manifest,
    });
  },
};
