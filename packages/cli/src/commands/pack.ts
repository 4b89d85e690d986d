import type { Command } from './types.js';

interface PackOptions {
  packDestination?: string;
  dryRun?: boolean;
}

export const pack: Command<PackOptions> = {
  name: 'pack',
  summary: 'Check a package folder and write the tarball `pkg publish` would send',
  description:
    'Check a package folder for the engines its package.json names (Unity: .meta files and the unity fields; Godot: one addons/<folder>/ with its plugin.cfg and the godot fields; Unreal: one <Name>.uplugin agreeing with the package, the unreal fields), pack it as `npm pack` does, and write <name>-<version>.tgz: the exact bytes `pkg publish` sends for that folder. `pkg publish <file.tgz>` publishes it as it is.',
  arguments: [{ name: 'folder', description: 'the package folder (default: the working directory)' }],
  options: [
    { flags: '--pack-destination <dir>', description: 'folder to write the tarball to (default: the working directory)' },
    { flags: '--dry-run', description: 'check and pack, print what the tarball holds, and write nothing' },
  ],
  examples: ['pkg pack', 'pkg pack addons-src --pack-destination dist', 'pkg pack --dry-run --json'],
  async run(ctx, { args, options }) {
    const { packFolder } = await import('../publish/publish-action.js');
    return packFolder(ctx, typeof args.folder === 'string' ? args.folder : undefined, options);
  },
};
