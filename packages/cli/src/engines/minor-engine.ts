import {
  formatMinorEngineRange,
  isMinorEngineCompatible,
  MINOR_ENGINES,
  minorEngineRange,
  parseProjectMinorVersion,
  type MinorEngine,
} from '@pkg/protocol';
import type { Engine } from './engine.js';

/**
 * The version checks of an engine whose packages name a `<major>.<minor>` range (Godot, Unreal):
 * the protocol's rules, the same for both, so the two engines judge a record alike.
 */
export function minorEngineChecks(
  engine: MinorEngine,
): Pick<Engine, 'isBuiltIn' | 'isCompatible' | 'requirementOf' | 'isVersionText'> {
  const { field, displayName } = MINOR_ENGINES[engine];
  return {
    // Neither engine ships packages of its own: every one comes from a registry.
    isBuiltIn: () => false,
    isCompatible: (record, version) => version.text === null || isMinorEngineCompatible(record, engine, version.text),
    requirementOf(record) {
      const range = minorEngineRange(record, engine);
      return range ? formatMinorEngineRange(engine, range) : `${displayName} support (it names no '${field}' field)`;
    },
    isVersionText: (text) => parseProjectMinorVersion(text) !== null,
  };
}
