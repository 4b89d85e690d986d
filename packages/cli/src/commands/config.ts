import { CONFIG_KEYS, configKey } from '../config/keys.js';
import { ClientError } from '../errors/client-errors.js';
import type { Command } from './types.js';

const ACTIONS = ['get', 'set', 'delete', 'list'] as const;

export const config: Command = {
  name: 'config',
  summary: 'Read and change the client settings',
  description: 'Read and change the settings in the per-user config file.',
  helpText: [
    'Actions:',
    '  pkg config get <key>          print a setting (the default when unset)',
    '  pkg config set <key> <value>  change a setting',
    '  pkg config delete <key>       remove a setting (back to the default)',
    '  pkg config list               print every setting and where it comes from',
    '',
    'Keys:',
    ...CONFIG_KEYS.map((k) => `  ${k.key.padEnd(12)}${k.description} Default: ${k.default}.`),
  ].join('\n'),
  arguments: [
    { name: 'action', description: `one of ${ACTIONS.join(', ')}`, required: true },
    { name: 'key', description: 'setting name' },
    { name: 'value', description: 'new value (set only)' },
  ],
  examples: ['pkg config set registry https://registry.example.com', 'pkg config get registry', 'pkg config list --json'],
  async run(ctx, { args }) {
    const action = String(args.action);
    const key = args.key as string | undefined;
    const value = args.value as string | undefined;
    if (!(ACTIONS as readonly string[]).includes(action)) {
      throw new ClientError('CONFIG_UNKNOWN_ACTION', { action: String(action), actions: ACTIONS.join(', ') });
    }
    const file = await ctx.config();
    if (action === 'list') {
      if (key !== undefined) throw usage('pkg config list takes no key');
      const entries = file
        .list()
        .map((entry) =>
          entry.key === 'registry' && ctx.deps.env.PKG_REGISTRY
            ? { ...entry, value: ctx.deps.env.PKG_REGISTRY, source: 'PKG_REGISTRY' }
            : entry,
        );
      return {
        json: {
          file: file.file,
          config: Object.fromEntries(entries.map((e) => [e.key, e.value])),
          sources: Object.fromEntries(entries.map((e) => [e.key, e.source])),
        },
        text: [
          ...entries.map((e) => `${e.key} = ${e.value}${e.source === 'file' ? '' : ` (${e.source})`}`),
          '',
          `Config file: ${file.file}`,
        ],
      };
    }
    if (key === undefined) throw usage(`pkg config ${action} needs a key`);
    configKey(key);
    if (action === 'get') {
      if (value !== undefined) throw usage('pkg config get takes only a key');
      const fromEnv = key === 'registry' ? ctx.deps.env.PKG_REGISTRY : undefined;
      const shown = fromEnv ?? file.get(key);
      const source = fromEnv ? 'PKG_REGISTRY' : file.isSet(key) ? 'file' : 'default';
      return { json: { key, value: shown, source }, text: [String(shown)] };
    }
    if (action === 'set') {
      if (value === undefined) throw usage('pkg config set needs a key and a value');
      const stored = await file.set(key, value);
      return { json: { key, value: stored, file: file.file }, text: [`${key} = ${stored}`] };
    }
    if (value !== undefined) throw usage('pkg config delete takes only a key');
    const removed = await file.delete(key);
    const fallback = file.get(key);
    return {
      json: { key, deleted: removed, value: fallback },
      text: [removed ? `Deleted ${key}; now the default: ${fallback}` : `${key} was not set; the default applies: ${fallback}`],
    };
  },
};

function usage(message: string): ClientError {
  return new ClientError('CONFIG_USAGE', { problem: message });
}
