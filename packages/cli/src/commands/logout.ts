import { registryHostKey } from '../http/registry-url.js';
import { ClientError } from '../errors/client-errors.js';
import { REGISTRY_OPTION, type Command } from './types.js';

interface LogoutOptions {
  registry?: string;
}

export const logout: Command<LogoutOptions> = {
  name: 'logout',
  summary: 'Revoke and forget the token of a registry host',
  description: [
    'Revoke the token of the registry in effect on the registry (DELETE /-/user/token/<token>),',
    "remove it from this machine, and remove the entry `pkg login --upmconfig` wrote to Unity's",
    '~/.upmconfig.toml. With PKG_TOKEN set, that token is the one revoked.',
  ].join('\n'),
  options: [REGISTRY_OPTION],
  examples: ['pkg logout', 'pkg logout --registry https://acme.registry.example'],
  async run(ctx, { options }) {
    const registry = await ctx.registryUrl(options.registry);
    const host = registryHostKey(registry);
    const token = await ctx.storedToken(registry);
    if (!token) throw new ClientError('NOT_LOGGED_IN', { registry });

    const client = await ctx.registry(registry, { token });
    let revokeError: unknown = null;
    try {
      await client.revokeToken(token);
    } catch (err) {
      // A token the registry no longer accepts is as good as revoked.
      if (!(err instanceof ClientError && err.code === 'TOKEN_REJECTED')) revokeError = err;
    }

    const store = await ctx.tokens();
    let forgotten: boolean;
    try {
      forgotten = await store.delete(host);
    } catch (err) {
      throw new ClientError('TOKEN_REMOVE_FAILED', { reason: (err as Error).message }, { cause: err });
    }
    const { upmConfigPath, removeUpmToken } = await import('../auth/upmconfig.js');
    const upmconfig = upmConfigPath(ctx.deps.env, ctx.deps.homedir, ctx.deps.platform);
    let upmRemoved = false;
    try {
      upmRemoved = await removeUpmToken(ctx.deps.fs, upmconfig, registry, token);
    } catch (err) {
      ctx.reporter.warn(`could not update ${upmconfig}: ${(err as Error).message}`);
    }
    if (store.overridden) ctx.reporter.warn('PKG_TOKEN is still set in the environment.');

    if (revokeError) {
      const cause = revokeError instanceof ClientError ? revokeError : null;
      throw new ClientError(
        'REVOKE_FAILED',
        { reason: cause?.message ?? 'Failed to revoke the token', registry },
        { cause: revokeError },
      );
    }
    return {
      json: { registry, revoked: true, forgotten, tokenStore: store.name, ...(upmRemoved ? { upmconfig } : {}) },
      text: [
        `Logged out of ${registry}.`,
        forgotten ? `Token revoked and removed from the ${store.name}.` : 'Token revoked.',
        ...(upmRemoved ? [`Unity credentials removed from ${upmconfig}`] : []),
      ],
    };
  },
};
