import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  formatMinorEngineRange,
  isMinorEngineCompatible,
  minorEngineFieldProblem,
  parseMinorVersion,
  parseProjectMinorVersion,
  supportedEngines,
} from '../src/engine-fields.js';

describe('godot and unreal fields', () => {
  it.each(['4.2', '5.3', '0.0', '10.15'])('accepts %s', (v) => {
    expect(parseMinorVersion(v)).not.toBeNull();
    expect(minorEngineFieldProblem({ godot: v }, 'godot')).toBeNull();
  });

  it.each(['4', '4.2.1', '04.2', '4.02', ' 4.2', '4.x', '', 4.2, null])('refuses %j', (v) => {
    expect(parseMinorVersion(v)).toBeNull();
    expect(minorEngineFieldProblem({ unreal: v }, 'unreal')).toBe(
      `'unreal' must be a minimum engine version of the form <major>.<minor>, e.g. 5.3`,
    );
  });

  it('checks the maximum against the minimum', () => {
    expect(minorEngineFieldProblem({ godotMax: '4.3' }, 'godot')).toBe(`'godotMax' needs a 'godot' field`);
    expect(minorEngineFieldProblem({ godot: '4.3', godotMax: '4.2' }, 'godot')).toBe(`'godotMax' must not be below 'godot'`);
    expect(minorEngineFieldProblem({ godot: '4.3', godotMax: '4.3' }, 'godot')).toBeNull();
    expect(minorEngineFieldProblem({ unity: '2021' }, 'godot')).toBeNull();
  });

  it('reads project versions with or without a patch', () => {
    expect(parseProjectMinorVersion('4.2.1')).toEqual({ major: 4, minor: 2 });
    expect(parseProjectMinorVersion('5.3')).toEqual({ major: 5, minor: 3 });
    expect(parseProjectMinorVersion('{E1C4A0B2}')).toBeNull();
  });

  it('formats ranges as people read them', () => {
    expect(formatMinorEngineRange('godot', { min: { major: 4, minor: 2 } })).toBe('Godot 4.2');
    expect(formatMinorEngineRange('unreal', { min: { major: 5, minor: 3 }, max: { major: 5, minor: 3 } })).toBe(
      'Unreal Engine 5.3 only',
    );
    expect(formatMinorEngineRange('godot', { min: { major: 4, minor: 1 }, max: { major: 4, minor: 3 } })).toBe('Godot 4.1–4.3');
  });

  it('lists the engines a version supports; none named is a Unity package', () => {
    expect(supportedEngines({ unity: '2022.3', unityRelease: '10f1', unreal: '5.3', unrealMax: '5.4' })).toEqual([
      { engine: 'unity', min: '2022.3.10f1' },
      { engine: 'unreal', min: '5.3', max: '5.4' },
    ]);
    expect(supportedEngines({})).toEqual([{ engine: 'unity' }]);
  });

  const minor = fc.record({ major: fc.integer({ min: 0, max: 20 }), minor: fc.integer({ min: 0, max: 20 }) });
  const text = (v: { major: number; minor: number }) => `${v.major}.${v.minor}`;

  it('is compatible exactly between the minimum and the maximum, whatever the patch', () => {
    fc.assert(
      fc.property(minor, minor, minor, fc.integer({ min: 0, max: 9 }), (a, b, project, patch) => {
        const [min, max] = a.major * 100 + a.minor <= b.major * 100 + b.minor ? [a, b] : [b, a];
        const key = (v: typeof a) => v.major * 100 + v.minor;
        const record = { godot: text(min), godotMax: text(max) };
        const expected = key(project) >= key(min) && key(project) <= key(max);
        expect(isMinorEngineCompatible(record, 'godot', `${text(project)}.${patch}`)).toBe(expected);
        expect(isMinorEngineCompatible({ godot: text(min) }, 'godot', text(project))).toBe(key(project) >= key(min));
        expect(isMinorEngineCompatible({ unreal: text(min) }, 'godot', text(project))).toBe(false);
      }),
    );
  });
});
