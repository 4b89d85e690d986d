import { ClientError } from '../errors/client-errors.js';
import { REGISTRY_OPTION, type Command } from './types.js';

interface WhoamiOptions {
  registry?: string;
}

export const whoami: Command<WhoamiOptions> = {
  name: 'whoami',
  summary: 'Show the user logged in to the registry',
  description:
    'Show the username, e-mail and registry of the credential for the registry in effect: PKG_TOKEN, the token `pkg login` stored, else the one Unity’s ~/.upmconfig.toml holds for it, as every other command uses them.',
  options: [REGISTRY_OPTION],
  examples: ['pkg whoami', 'pkg whoami --registry https://acme.registry.example --json'],
  async run(ctx, { options }) {
    const registry = await ctx.registryUrl(options.registry);
    // A token store that cannot be read is this command's error (it is what whoami is asked about);
    // without a stored token, the credential every other command sends (upmconfig's) is used.
    const stored = await ctx.storedToken(registry);
    const client = await ctx.registry(registry, stored ? { token: stored } : {});
    if (!client.authenticated) throw new ClientError('NOT_LOGGED_IN', { registry });
    const identity = await client.whoami();
    return {
      json: { username: identity.username, email: identity.email, registry },
      text: [`Username: ${identity.username}`, `Email: ${identity.email || '(none)'}`, `Registry: ${registry}`],
    };
  },
};
