/**
 * "needs 2023.1 or newer" reads right for a minimum; a Godot or Unreal version with a maximum
 * (`Godot 4.1–4.3`, `Unreal Engine 5.3 only`) already says where it ends, and one that names no
 * version of the engine says so in parentheses.
 */
export function orNewer(requirement: string): string {
  return requirement.includes('–') || requirement.endsWith(' only') || requirement.endsWith(')')
    ? requirement
    : `${requirement} or newer`;
}
