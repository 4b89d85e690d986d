import type { NewTokenRequest, RegistryToken } from '../http/registry-client.js';
import { ClientError } from '../errors/client-errors.js';
import { OTP_OPTION, REGISTRY_OPTION, type Command } from './types.js';

const ACTIONS = ['create', 'list', 'revoke'] as const;

interface TokenOptions {
  registry?: string;
  readOnly?: boolean;
  publishOnly?: boolean;
  automation?: boolean;
  cidr?: string;
  packages?: string;
  expires?: number;
  name?: string;
}

/** Splits a comma-separated flag value. */
function listOf(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  const items = value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item.length > 0);
  return items.length > 0 ? items : undefined;
}

function parseDays(value: string): number {
  const days = Number(value);
  if (!/^\d+$/.test(value) || days < 1 || days > 3650) {
    throw new ClientError('INVALID_NUMBER_FLAG', { flag: '--expires', value, max: '3650' });
  }
  return days;
}

function limitsOf(t: RegistryToken): string[] {
  const limits: string[] = [];
  if (t.readonly) limits.push('read-only');
  if (t.publish_only) limits.push('publish-only');
  if (t.automation) limits.push('automation');
  if (t.packages) limits.push(`packages ${t.packages.join(', ')}`);
  if (t.cidr_whitelist) limits.push(`from ${t.cidr_whitelist.join(', ')}`);
  if (t.expires) limits.push(`expires ${t.expires}`);
  return limits;
}

export const token: Command<TokenOptions> = {
  name: 'token',
  summary: 'Create, list and revoke your access tokens',
  description:
    'Manage the tokens of the account logged in to the registry in effect: create one with limits (for CI), list them with their limits and last use, revoke one by its key.',
  helpText: [
    'Actions:',
    '  pkg token create [limits]   make a token (asks for your password); it is shown once',
    '  pkg token list              your tokens: key, first characters, limits, last use',
    '  pkg token revoke <key>      end a token (a key from the list, or its start)',
  ].join('\n'),
  arguments: [
    { name: 'action', description: `one of ${ACTIONS.join(', ')}`, required: true },
    { name: 'key', description: 'the key of the token to revoke (revoke only)' },
  ],
  options: [
    REGISTRY_OPTION,
    OTP_OPTION,
    { flags: '--read-only', description: 'create: the token may only read' },
    { flags: '--publish-only', description: 'create: the token may read and publish new versions, nothing else' },
    { flags: '--automation', description: 'create: for CI, never asked for a one-time password' },
    { flags: '--packages <list>', description: 'create: only these packages or namespaces (comma-separated, e.g. com.studio.*)' },
    { flags: '--cidr <list>', description: 'create: only from these address ranges (comma-separated, e.g. 10.0.0.0/8)' },
    { flags: '--expires <days>', description: 'create: expires after this many days (1-3650)', parse: parseDays },
    { flags: '--name <name>', description: 'create: a name to recognise it by' },
  ],
  examples: [
    'pkg token create --read-only --packages "com.studio.*" --expires 90 --name ci',
    'pkg token list --json',
    'pkg token revoke 3f2a9c1e',
  ],
  async run(ctx, { args, options }) {
    const action = String(args.action);
    if (!(ACTIONS as readonly string[]).includes(action)) {
      throw new ClientError('TOKEN_UNKNOWN_ACTION', { action, actions: ACTIONS.join(', ') });
    }
    const key = args.key as string | undefined;
    if (action !== 'revoke' && key !== undefined) throw usage(`pkg token ${action} takes no key`);
    const registry = await ctx.registryUrl(options.registry);
    const stored = await ctx.storedToken(registry);
    if (!stored) throw new ClientError('NOT_LOGGED_IN', { registry });
    const client = await ctx.registry(registry, { token: stored });

    if (action === 'list') {
      const tokens = await client.listTokens();
      return {
        json: { registry, tokens },
        text:
          tokens.length === 0
            ? ['No tokens.']
            : tokens.flatMap((t) => [
                `${t.key}  ${t.token}…${t.name ? `  ${t.name}` : ''}`,
                `  created ${t.created}, last used ${t.last_used ? `${t.last_used} from ${t.last_address}` : 'never'}`,
                ...(limitsOf(t).length > 0 ? [`  limits: ${limitsOf(t).join('; ')}`] : []),
              ]),
      };
    }

    if (action === 'revoke') {
      if (key === undefined || key.length === 0) throw usage('pkg token revoke needs the key of a token (pkg token list)');
      // A key's start is enough, as npm takes it; it must name exactly one token.
      const matches = (await client.listTokens()).filter((t) => t.key.startsWith(key));
      if (matches.length !== 1) {
        throw matches.length === 0
          ? new ClientError('TOKEN_NOT_FOUND', { key, registry })
          : usage(`'${key}' is the start of several keys: give more of it`);
      }
      await client.deleteToken(matches[0]!.key);
      return { json: { registry, revoked: matches[0]!.key }, text: [`Revoked token ${matches[0]!.key}`] };
    }

    if (options.readOnly && options.publishOnly) throw usage('--read-only and --publish-only exclude each other');
    const password = await ctx.prompter.askHidden('Password');
    ctx.prompter.close();
    if (!password) throw new ClientError('EMPTY_PASSWORD');
    ctx.reporter.addSecret(password);
    const cidrs = listOf(options.cidr);
    const packages = listOf(options.packages);
    const request: NewTokenRequest = {
      password,
      ...(options.name ? { name: options.name } : {}),
      ...(options.readOnly ? { readonly: true } : {}),
      ...(options.publishOnly ? { publish_only: true } : {}),
      ...(options.automation ? { automation: true } : {}),
      ...(cidrs ? { cidr_whitelist: cidrs } : {}),
      ...(packages ? { packages } : {}),
      ...(options.expires !== undefined ? { expires: options.expires } : {}),
    };
    const created = await client.createToken(request);
    const { token: secret, ...listed } = created;
    return {
      json: { registry, token: secret, ...listed },
      text: [
        `Created token ${secret}`,
        `Key: ${listed.key}${limitsOf(listed as RegistryToken).length > 0 ? `; limits: ${limitsOf(listed as RegistryToken).join('; ')}` : ''}`,
        'It is shown only this once: store it now (e.g. as PKG_TOKEN in your CI secrets).',
      ],
    };
  },
};

function usage(problem: string): ClientError {
  return new ClientError('TOKEN_USAGE', { problem });
}
