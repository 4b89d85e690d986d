// npm-packlist ships no types; this is the part `pkg publish` uses.
declare module 'npm-packlist' {
  interface PackTree {
    path: string;
    package: Record<string, unknown>;
    isProjectRoot: boolean;
    edgesOut: Map<string, unknown>;
  }
  export default function packlist(tree: PackTree, options?: { path?: string }): Promise<string[]>;
}
