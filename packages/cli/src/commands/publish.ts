import { OTP_OPTION, REGISTRY_OPTION, type Command } from './types.js';

interface PublishOptions {
  registry?: string;
  tag?: string;
  dryRun?: boolean;
}

export const publish: Command<PublishOptions> = {
  name: 'publish',
  summary: 'Check a Unity, Godot or Unreal package, pack it as npm does, and publish it',
  description:
    'Check a package folder for the engines its package.json names, and only those (a reverse-DNS name and a semver version for all; Unity, also when no engine is named: `unity` and `unityRelease` as Unity writes them, a displayName, a .meta file for every file and folder outside folders ending in ~; Godot: the `godot` fields, one addons/<folder>/ and its plugin.cfg; Unreal: the `unreal` fields, one <Name>.uplugin whose name and VersionName agree with the package, a warning for binaries built for another engine version). Then pack it as `npm pack` does (the same bytes as `pkg pack`), print the contents, sizes and integrity as npm does and publish with the token of the registry. Given a .tgz file (from `pkg pack`, or signed by Unity), the same checks run on its contents and the file is sent as it is, never repacked. Large packages are streamed, with a progress bar on a terminal.',
  arguments: [{ name: 'target', description: 'the package folder or a prepared .tgz (default: the working directory)' }],
  options: [
    { flags: '--dry-run', description: 'check and pack, print what would be published, and publish nothing' },
    {
      flags: '--tag <tag>',
      description: 'the dist-tag to publish under (default: publishConfig.tag of package.json, else latest)',
    },
    {
      ...REGISTRY_OPTION,
      description:
        'registry to publish to (default: publishConfig.registry of package.json, else the `registry` setting or PKG_REGISTRY)',
    },
    OTP_OPTION,
  ],
  examples: [
    'pkg publish --dry-run',
    'pkg publish Packages/com.vendor.tool',
    'pkg publish com.vendor.tool-1.0.0.tgz',
    'pkg publish --tag beta --json',
  ],
  async run(ctx, { args, options }) {
    const { publishFolder } = await import('../publish/publish-action.js');
    return publishFolder(ctx, typeof args.target === 'string' ? args.target : undefined, options);
  },
};
