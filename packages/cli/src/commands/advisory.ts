import { ClientError } from '../errors/client-errors.js';
import { OTP_OPTION, REGISTRY_OPTION, type Command } from './types.js';

const ACTIONS = ['add', 'list', 'withdraw'] as const;

interface AdvisoryOptions {
  registry?: string;
  severity?: string;
  affected?: string;
  patched?: string;
  title?: string;
  description?: string;
  url?: string;
  id?: string;
  withdrawn?: boolean;
}

export const advisory: Command<AdvisoryOptions> = {
  name: 'advisory',
  summary: "Publish, list and withdraw a package's security advisories",
  description:
    "Security advisories tell the users of a package that some of its versions are vulnerable: `npm audit` and `pkg audit` report them. A package's maintainers publish and withdraw them; anyone who can read the package lists them.",
  helpText: [
    'Actions:',
    '  pkg advisory add <package> --severity <s> --affected <range> --title <text> [--patched <range>] [--description <text>] [--url <url>] [--id <id>]',
    '                                     publish an advisory (with --id of one it has: replace it)',
    '  pkg advisory list <package> [--withdrawn]',
    '                                     the advisories in force (and the withdrawn ones)',
    '  pkg advisory withdraw <package> <id>',
    '                                     withdraw an advisory (it stays listed with --withdrawn)',
  ].join('\n'),
  arguments: [
    { name: 'action', description: `one of ${ACTIONS.join(', ')}`, required: true },
    { name: 'package', description: 'the package', required: true },
    { name: 'id', description: 'the advisory (withdraw only)' },
  ],
  options: [
    { flags: '--severity <severity>', description: 'info, low, moderate, high or critical (add)' },
    { flags: '--affected <range>', description: 'the affected versions, a semver range such as <1.2.3 (add)' },
    { flags: '--patched <range>', description: 'the versions that fix it, such as >=1.2.3 (add; default: none yet)' },
    { flags: '--title <text>', description: 'a one-line summary (add)' },
    { flags: '--description <text>', description: 'what is wrong and what to do (add)' },
    { flags: '--url <url>', description: 'where to read more (add; default: the package page of the registry)' },
    { flags: '--id <id>', description: 'the advisory id, such as a CVE (add; default: made by the registry)' },
    { flags: '--withdrawn', description: 'list withdrawn advisories too (list)' },
    REGISTRY_OPTION,
    OTP_OPTION,
  ],
  examples: [
    "pkg advisory add com.vendor.tool --severity high --affected '<1.2.3' --patched '>=1.2.3' --title 'Save files readable by others'",
    'pkg advisory list com.vendor.tool --json',
    'pkg advisory withdraw com.vendor.tool PKG-1A2B3C4D5E6F',
  ],
  async run(ctx, { args, options }) {
    const action = String(args.action);
    if (!(ACTIONS as readonly string[]).includes(action)) {
      throw new ClientError('USAGE', {
        problem: `unknown advisory action '${action}': one of ${ACTIONS.join(', ')}`,
        command: 'advisory ',
      });
    }
    const name = String(args.package);
    const { checkPackageName } = await import('@pkg/protocol');
    const check = checkPackageName(name);
    if (!check.ok) throw new ClientError('INVALID_PACKAGE_NAME', { name, rule: check.rule });
    const registry = await ctx.registryUrl(options.registry);
    if (action === 'list') {
      const client = await ctx.registry(registry, { token: await ctx.storedToken(registry) });
      const advisories = await client.advisories(name, options.withdrawn ?? false);
      return {
        json: { package: name, registry, advisories },
        text:
          advisories.length === 0
            ? [`No advisories for ${name}.`]
            : advisories.flatMap((a) => [
                `${a.id}  ${a.severity.toUpperCase()}  ${a.title}${a.withdrawn ? `  (withdrawn ${a.withdrawn})` : ''}`,
                `  affected: ${a.vulnerable_versions}   patched: ${a.patched_versions}   ${a.url}`,
              ]),
      };
    }
    const token = await ctx.storedToken(registry);
    if (!token) throw new ClientError('NOT_LOGGED_IN', { registry });
    const client = await ctx.registry(registry, { token });
    if (action === 'withdraw') {
      if (typeof args.id !== 'string')
        throw new ClientError('USAGE', { problem: 'pkg advisory withdraw needs the advisory id', command: 'advisory ' });
      const withdrawn = await client.withdrawAdvisory(name, args.id);
      return { json: { package: name, registry, advisory: withdrawn }, text: [`Withdrew ${withdrawn.id} of ${name}.`] };
    }
    const missing = (['severity', 'affected', 'title'] as const).filter((option) => options[option] === undefined);
    if (missing.length > 0) {
      throw new ClientError('USAGE', {
        problem: `pkg advisory add needs ${missing.map((m) => `--${m}`).join(', ')}`,
        command: 'advisory ',
      });
    }
    const body: Record<string, unknown> = {
      severity: options.severity,
      vulnerable_versions: options.affected,
      title: options.title,
      ...(options.patched !== undefined ? { patched_versions: options.patched } : {}),
      ...(options.description !== undefined ? { description: options.description } : {}),
      ...(options.url !== undefined ? { url: options.url } : {}),
      ...(options.id !== undefined ? { id: options.id } : {}),
    };
    const published = await client.publishAdvisory(name, body);
    return {
      json: { package: name, registry, advisory: published },
      text: [`Published ${published.id} (${published.severity}) for ${name} ${published.vulnerable_versions}: ${published.url}`],
    };
  },
};
