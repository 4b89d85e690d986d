import { registryHostKey } from '../http/registry-url.js';
import { ClientError } from '../errors/client-errors.js';
import { SEPARATOR } from '../output/format.js';
import { success } from '../output/reporter.js';
import { REGISTRY_OPTION, type Command } from './types.js';

interface LoginOptions {
  registry?: string;
  upmconfig?: boolean;
  /** false with --no-signup. */
  signup?: boolean;
}

export const login: Command<LoginOptions> = {
  name: 'login',
  summary: 'Log in to a registry and store the token for its host',
  description: [
    'Ask for username, password (not echoed) and e-mail, log in to the registry, verify the new token',
    'and store it for that registry host: in the OS keychain when one answers, otherwise in an',
    'AES-256-GCM encrypted file. Answers may also be piped on stdin, one per line.',
    'An unknown user is signed up when the registry allows it (never with --no-signup), and the',
    'output says so. The token this login replaces is revoked on the registry.',
  ].join('\n'),
  options: [
    { ...REGISTRY_OPTION, description: 'registry to log in to; also becomes the configured registry' },
    {
      flags: '--upmconfig',
      description: "also write the token to Unity's ~/.upmconfig.toml (UPM_USER_CONFIG_FILE overrides the path)",
    },
    { flags: '--no-signup', description: 'log in to an existing account only: never create one' },
  ],
  examples: [
    'pkg login',
    'pkg login --registry https://acme.registry.example --upmconfig',
    "printf 'alice\\nsecret\\nalice@example.com\\n' | pkg login --registry http://127.0.0.1:4873",
  ],
  async run(ctx, { options }) {
    const { reporter } = ctx;
    const registry = await ctx.registryUrl(options.registry);
    const host = registryHostKey(registry);
    // Choose the store first: a token the client cannot keep should never be issued.
    const store = await ctx.tokens();

    reporter.line('Registry Login');
    reporter.line(SEPARATOR);
    reporter.line(`Registry: ${registry}`);
    reporter.line(SEPARATOR);
    const prompter = ctx.prompter;
    const username = await prompter.ask('Username');
    if (!username) throw new ClientError('EMPTY_USERNAME');
    const password = await prompter.askHidden('Password');
    if (!password) throw new ClientError('EMPTY_PASSWORD');
    reporter.addSecret(password);
    const email = await prompter.ask('Email');
    prompter.close();

    const client = await ctx.registry(registry, { token: null });
    const signup = options.signup !== false;
    let token: string;
    let created: boolean;
    try {
      ({ token, created = false } = await client.login(username, password, email, { signup }));
    } catch (err) {
      if (!signup && err instanceof ClientError && err.code === 'INVALID_CREDENTIALS') {
        throw new ClientError('NO_SIGNUP_REFUSED', { user: username });
      }
      throw err;
    }
    reporter.addSecret(token);
    const identity = await client.whoami(token);

    // The token this login replaces (never PKG_TOKEN's): read before it is overwritten.
    const base = (store as { base?: typeof store }).base ?? store;
    const previous = await base.get(host).catch(() => null);
    if (previous) reporter.addSecret(previous);

    try {
      await store.set(host, token);
    } catch (err) {
      // Do not leave a live token behind that nobody holds.
      await client.revokeToken(token).catch(() => undefined);
      throw new ClientError('TOKEN_STORE_FAILED', { reason: (err as Error).message, dir: ctx.paths.dataDir }, { cause: err });
    }
    if (store.overridden) reporter.warn('PKG_TOKEN is set: it overrides the stored token until it is unset.');

    // Best effort: a replaced token nobody holds any more should not stay valid.
    let previousToken: 'none' | 'revoked' | 'not-revoked' = 'none';
    if (previous && previous !== token) {
      try {
        await client.revokeToken(previous);
        previousToken = 'revoked';
      } catch (err) {
        // A token the registry no longer accepts is as good as revoked.
        if (err instanceof ClientError && err.code === 'TOKEN_REJECTED') previousToken = 'revoked';
        else {
          previousToken = 'not-revoked';
          reporter.warn(
            `Could not revoke the previous token (${(err as Error).message}); revoke it in the registry's web interface (Access tokens).`,
          );
        }
      }
    }

    let registryConfigured = false;
    if (options.registry !== undefined) {
      await (await ctx.config()).set('registry', registry);
      registryConfigured = true;
    }
    let upmconfig: string | undefined;
    if (options.upmconfig) {
      const { upmConfigPath, writeUpmToken } = await import('../auth/upmconfig.js');
      upmconfig = upmConfigPath(ctx.deps.env, ctx.deps.homedir, ctx.deps.platform);
      try {
        await writeUpmToken(ctx.deps.fs, upmconfig, registry, token);
      } catch (err) {
        throw new ClientError('UPMCONFIG_FAILED', { file: upmconfig, reason: (err as Error).message }, { cause: err });
      }
    }

    return {
      json: {
        registry,
        username: identity.username,
        email: identity.email,
        created,
        tokenStore: store.name,
        previousToken,
        registryConfigured,
        ...(upmconfig ? { upmconfig } : {}),
      },
      text: [
        SEPARATOR,
        ...(created ? [success(`Created account '${identity.username}'`)] : []),
        success('Successfully authenticated!'),
        `Token stored securely in ${store.name}.`,
        ...(previousToken === 'revoked' ? ['The token it replaces was revoked.'] : []),
        ...(registryConfigured ? [`Registry configured: ${registry}`] : []),
        ...(upmconfig ? [`Unity credentials written to ${upmconfig}`] : []),
      ],
    };
  },
};
