import { ClientError } from '../errors/client-errors.js';
import { REGISTRY_OPTION, type Command } from './types.js';

interface WhoamiOptions {
  registry?: string;
}

export const whoami: Command<WhoamiOptions> = {
  name: 'whoami',
  summary: 'Show the user logged in to the registry',
  description: 'Show the username, e-mail and registry of the token stored for the registry in effect (or PKG_TOKEN).',
  options: [REGISTRY_OPTION],
  examples: ['pkg whoami', 'pkg whoami --registry https://acme.registry.example --json'],
  async run(ctx, { options }) {
    const registry = await ctx.registryUrl(options.registry);
    const token = await ctx.storedToken(registry);
    if (!token) throw new ClientError('NOT_LOGGED_IN', { registry });
    const client = await ctx.registry(registry, { token });
    const identity = await client.whoami();
    return {
      json: { username: identity.username, email: identity.email, registry },
      text: [`Username: ${identity.username}`, `Email: ${identity.email || '(none)'}`, `Registry: ${registry}`],
    };
  },
};
