/**
 * Unity's built-in modules (`com.unity.modules.physics`, …) ship inside the editor: they have no
 * registry versions and are never updated by `pkg`. Packages that merely are not on our registry
 * (`com.unity.textmeshpro` from Unity's own registry) are told apart by asking the registry.
 */
export function isUnityBuiltIn(name: string): boolean {
  return name.startsWith('com.unity.modules.');
}
