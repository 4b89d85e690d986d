import { REGISTRY_OPTION, type Command } from './types.js';

interface PublishOptions {
  registry?: string;
  tag?: string;
  dryRun?: boolean;
}

export const publish: Command<PublishOptions> = {
  name: 'publish',
  summary: 'Check a Unity package folder, pack it as npm does, and publish it',
  description:
    'Pack a Unity package folder as `npm pack` does (the `files` field and .npmignore, every file under package/, the same bytes for the same folder) after checking it: a reverse-DNS name, a semver version, `unity` and `unityRelease` as Unity writes them, a displayName, and a .meta file for every file and folder (none orphaned) outside folders ending in ~. Then print the contents, sizes and integrity as npm does and publish with the token of the registry. Large packages are streamed, with a progress bar on a terminal.',
  arguments: [{ name: 'folder', description: 'the package folder (default: the working directory)' }],
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
  ],
  examples: ['pkg publish --dry-run', 'pkg publish Packages/com.vendor.tool', 'pkg publish --tag beta --json'],
  async run(ctx, { args, options }) {
    const { publishFolder } = await import('../publish/publish-action.js');
    return publishFolder(ctx, typeof args.folder === 'string' ? args.folder : undefined, options);
  },
};
