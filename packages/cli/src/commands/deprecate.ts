import { OTP_OPTION, REGISTRY_OPTION, type Command } from './types.js';

export const deprecate: Command<{ registry?: string }> = {
  name: 'deprecate',
  summary: 'Mark versions of a package deprecated, with a message (an empty one lifts it)',
  description:
    "Mark the versions of a package that match a version or range deprecated, as `npm deprecate` does: installs show the message, and `pkg add` and `pkg update` never choose a deprecated version. Without a range, every version. An empty message ('') lifts the deprecation. Takes the token of a maintainer of the package.",
  arguments: [
    { name: 'package', description: '<name> or <name>@<version|range>', required: true },
    { name: 'message', description: "why, and what to use instead ('' lifts the deprecation)", required: true },
  ],
  options: [REGISTRY_OPTION, OTP_OPTION],
  examples: [
    "pkg deprecate com.vendor.input@'<2.0.0' 'Use 2.x: 1.x leaks input handlers'",
    "pkg deprecate com.vendor.input@1.2.0 ''",
  ],
  async run(ctx, { args, options }) {
    const { deprecate: run } = await import('../maintain/deprecate-action.js');
    return run(ctx, String(args.package), String(args.message), options.registry);
  },
};
