import { envName, SETTINGS, type SettingSpec } from './config/settings.js';

// What a free-text setting takes, where `<value>` would tell nothing.
const PLACEHOLDERS: Record<string, string> = {
  host: '<address>',
  registryName: '<name>',
  registryDomain: '<domain>',
  database: '<sqlite:path|postgres://…>',
  storage: '<directory|s3://bucket?…>',
  redis: '<redis://…>',
  trustProxy: '<false|true|hops|addresses>',
  uplinks: '<json-array>',
};

/** What a setting's flag takes: `<0-65535>`, `<anonymous|token>`, `<url>`, … */
export function placeholder(spec: SettingSpec): string {
  const named = PLACEHOLDERS[spec.key];
  if (named) return named;
  switch (spec.type) {
    case 'boolean':
      return '<true|false>';
    case 'enum':
      return `<${(spec.values ?? []).join('|')}>`;
    case 'integer':
      return spec.max !== undefined ? `<${spec.min ?? 0}-${spec.max}>` : `<n>`;
    case 'url':
      return '<url>';
    case 'path':
      return '<path>';
    case 'json':
      return '<json>';
    default:
      return '<value>';
  }
}

function defaultText(spec: SettingSpec): string {
  if (spec.default === undefined) return 'unset';
  if (
    spec.type === 'integer' &&
    typeof spec.default === 'number' &&
    spec.default >= 1024 * 1024 &&
    spec.default % (1024 * 1024) === 0
  ) {
    return `${spec.default} (${spec.default / (1024 * 1024)} MiB)`;
  }
  return String(spec.default);
}

function wrap(text: string, width: number, indent: string): string {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/)) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines.map((l) => indent + l).join('\n');
}

/**
 * `pkg-registry serve --help`: every flag with what it takes, its meaning, its default and its
 * environment variable, from the settings table (so a new setting is listed by construction).
 */
export function serveHelp(): string {
  const entries = [
    `  --config <file>\n${wrap('JSON config file whose keys are the settings below (environment: PKG_REGISTRY_CONFIG).', 76, '      ')}`,
    ...SETTINGS.map((spec: SettingSpec) => {
      const range = spec.type === 'integer' && spec.min !== undefined && spec.max === undefined ? ` Minimum ${spec.min}.` : '';
      const defaults = spec.default === undefined && /\bUnset:/.test(spec.description) ? '' : ` Default: ${defaultText(spec)}.`;
      const about = `${spec.description}${range}${defaults} Environment: ${envName(spec)}.`;
      return `  ${spec.flag} ${placeholder(spec)}\n${wrap(about, 76, '      ')}`;
    }),
  ];
  return `Usage: pkg-registry serve [options]

Starts the registry. Every option also comes from the config file (--config) and from a
PKG_REGISTRY_<NAME> environment variable; a flag wins over the environment, which wins over the
file. An unknown or invalid setting stops start-up with exit code 2.

Options:
${entries.join('\n')}
  -h, --help
      Show this help.

See docs/configuration.md for every setting.
`;
}
