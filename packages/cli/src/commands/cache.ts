import { ClientError } from '../errors/client-errors.js';
import type { Command } from './types.js';

const ACTIONS = ['ls', 'verify', 'clean'] as const;
type Action = (typeof ACTIONS)[number];

export const cache: Command = {
  name: 'cache',
  summary: 'List, verify or empty the local tarball cache',
  description:
    'The cache holds every tarball pkg downloaded, verified against the registry’s integrity value, and partial downloads that the next fetch resumes.',
  helpText: [
    'Actions:',
    '  pkg cache ls [name...]      list cached tarballs and partial downloads, with sizes',
    '  pkg cache verify            check every tarball against the integrity recorded when it was',
    '                              downloaded; remove corrupt ones and leftovers of killed runs',
    '  pkg cache clean [name...]   remove the cached tarballs and partial downloads (of these packages)',
  ].join('\n'),
  arguments: [
    { name: 'action', description: `one of ${ACTIONS.join(', ')}`, required: true },
    { name: 'name', description: 'package names (ls and clean)', variadic: true },
  ],
  examples: ['pkg cache ls', 'pkg cache verify --json', 'pkg cache clean com.vendor.big-assets'],
  async run(ctx, { args }) {
    const action = String(args.action);
    if (!(ACTIONS as readonly string[]).includes(action)) {
      throw new ClientError('CACHE_UNKNOWN_ACTION', { action, actions: ACTIONS.join(', ') });
    }
    const names = Array.isArray(args.name) ? args.name : args.name ? [args.name] : [];
    const { cacheAction } = await import('../cache/cache-actions.js');
    return cacheAction(ctx, action as Action, names);
  },
};
