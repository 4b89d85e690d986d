/**
 * What an engine whose packages `pkg` installs itself tells the installer (`src/install/`):
 * where a package's files go, how the project file enables it, and which files the engine
 * writes beside them.
 */
import type { VersionRecord } from '@pkg/protocol';
import type { ProjectFs } from '../files/project-fs.js';

/** One change made to the project file, recorded in the lock so that uninstall can undo exactly it. */
export interface ProjectEdit {
  /** What kind of edit (`godot-editor-plugin`, `unreal-plugin`): only its engine reads it. */
  kind: string;
  /** What was added: a `res://` path, a plugin name. */
  value: string;
  /**
   * What the edit created around the value (a section, a line, a key); removing the last value
   * removes it again, so the file ends as it was before the first package was added.
   */
  created?: string;
  /** The value the edit replaced, when it changed one instead of adding one. */
  previous?: unknown;
}

/** Where a package's files go: a folder of the package, copied as a folder of the project. */
export interface PackageLayout {
  /** The folder inside the package (`addons/dialog`), '' for the package itself. */
  source: string;
  /** The folder of the project it becomes (`addons/dialog`, `Plugins/Dialog`), with `/`. */
  target: string;
  /** Files of `source` that are not installed (paths relative to `source`). */
  exclude: string[];
}

export interface EngineInstaller {
  /** The project file the installer edits, relative to the project root (`project.godot`, `Game.uproject`). */
  projectFile(project: string, fs: ProjectFs): Promise<string>;
  /**
   * Where the package goes, from the paths of its files (relative to the package root, with
   * `/`); throws a clear error when the package is not laid out for this engine.
   */
  layout(files: readonly string[], record: VersionRecord): PackageLayout;
  /**
   * The project file with the package at `target` enabled, and the edit made; null when the
   * package needs no edit (or the file enables it already).
   */
  enable(text: string, target: string, files: readonly string[]): { text: string; edit: ProjectEdit } | null;
  /** The project file with `edit` undone. */
  disable(text: string, edit: ProjectEdit): string;
  /** Files the engine generates beside installed ones (Godot's `*.import`): never a local edit. */
  isGenerated(relative: string): boolean;
  /** Generated files carried over into a package's new version (Godot's `*.uid`, which scenes refer to). */
  keepsOnUpdate(relative: string): boolean;
}
