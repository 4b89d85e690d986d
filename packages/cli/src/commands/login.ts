import { registryHostKey } from '../http/registry-url.js';
import { ClientError } from '../output/errors.js';
import { SEPARATOR } from '../output/format.js';
import { REGISTRY_OPTION, type Command } from './types.js';

interface LoginOptions {
  registry?: string;
  upmconfig?: boolean;
}

export const login: Command<LoginOptions> = {
  name: 'login',
  summary: 'Log in to a registry and store the token for its host',
  description: [
    'Ask for username, password (not echoed) and e-mail, log in to the registry, verify the new token',
    'and store it for that registry host: in the OS keychain when one answers, otherwise in an',
    'AES-256-GCM encrypted file. Answers may also be piped on stdin, one per line.',
    'An unknown user is signed up when the registry allows it.',
  ].join('\n'),
  options: [
    { ...REGISTRY_OPTION, description: 'registry to log in to; also becomes the configured registry' },
    {
      flags: '--upmconfig',
      description: "also write the token to Unity's ~/.upmconfig.toml (UPM_USER_CONFIG_FILE overrides the path)",
    },
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
    if (!username) throw new ClientError('USAGE', { message: 'Username cannot be empty', hint: null });
    const password = await prompter.askHidden('Password');
    if (!password) throw new ClientError('USAGE', { message: 'Password cannot be empty', hint: null });
    reporter.addSecret(password);
    const email = await prompter.ask('Email');
    prompter.close();

    const client = await ctx.registry(registry, { token: null });
    const { token } = await client.login(username, password, email);
    reporter.addSecret(token);
    const identity = await client.whoami(token);

    try {
      await store.set(host, token);
    } catch (err) {
      // Do not leave a live token behind that nobody holds.
      await client.revokeToken(token).catch(() => undefined);
      throw new ClientError('TOKEN_STORE_FAILED', {
        hint: `${(err as Error).message}. Check that ${ctx.paths.dataDir} is writable, or choose the store with \`pkg config set tokenStore file\`.`,
        cause: err,
      });
    }
    if (store.overridden) reporter.warn('PKG_TOKEN is set: it overrides the stored token until it is unset.');

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
        throw new ClientError('UPMCONFIG_FAILED', {
          message: `Logged in, but failed to update ${upmconfig}: ${(err as Error).message}`,
          hint: 'Fix or remove the file, then run `pkg login --upmconfig` again.',
          cause: err,
        });
      }
    }

    return {
      json: {
        registry,
        username: identity.username,
        email: identity.email,
        tokenStore: store.name,
        registryConfigured,
        ...(upmconfig ? { upmconfig } : {}),
      },
      text: [
        SEPARATOR,
        'Successfully authenticated!',
        `Token stored securely in ${store.name}.`,
        ...(registryConfigured ? [`Registry configured: ${registry}`] : []),
        ...(upmconfig ? [`Unity credentials written to ${upmconfig}`] : []),
      ],
    };
  },
};
