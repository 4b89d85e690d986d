import { describe, expect, it } from 'vitest';
import { orNewer } from '../../src/resolve/requirement-text.js';

describe('orNewer', () => {
  it.each([
    ['2023.1', '2023.1 or newer'],
    ['2022.3.10f1', '2022.3.10f1 or newer'],
    ['Godot 4.3', 'Godot 4.3 or newer'],
    ['Godot 4.1–4.3', 'Godot 4.1–4.3'],
    ['Unreal Engine 5.3 only', 'Unreal Engine 5.3 only'],
    ["Godot support (it names no 'godot' field)", "Godot support (it names no 'godot' field)"],
  ])('%s → %s', (requirement, text) => {
    expect(orNewer(requirement)).toBe(text);
  });
});
