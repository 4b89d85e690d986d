import { OTP_OPTION, REGISTRY_OPTION, type Command } from './types.js';

export const distTag: Command<{ registry?: string }> = {
  name: 'dist-tag',
  summary: "Add, remove or list a package's dist-tags (latest, beta, …)",
  description:
    "Manage a package's dist-tags on the registry, as `npm dist-tag` does: `add <name>@<version> <tag>` points a tag at a published version, `rm <name> <tag>` removes a tag (never latest), `ls <name>` lists them. Changing tags takes the token of a maintainer of the package.",
  arguments: [
    { name: 'action', description: 'add, rm or ls', required: true },
    { name: 'args', description: 'add: <name>@<version> <tag>; rm: <name> <tag>; ls: <name>', variadic: true },
  ],
  options: [REGISTRY_OPTION, OTP_OPTION],
  examples: [
    'pkg dist-tag ls com.vendor.input',
    'pkg dist-tag add com.vendor.input@2.0.0-beta.1 beta',
    'pkg dist-tag rm com.vendor.input beta',
  ],
  async run(ctx, { args, options }) {
    const { distTag: run } = await import('../maintain/dist-tag-action.js');
    const rest = Array.isArray(args.args) ? args.args : [];
    return run(ctx, String(args.action), rest, options.registry);
  },
};
