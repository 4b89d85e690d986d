/**
 * The one interface every game engine implements. Commands talk to an `Engine` only; adding
 * Godot or Unreal means adding a folder beside `unity/` and one line in `engines/index.ts`.
 */
import type { ClientErrorParams } from '../errors/client-errors.js';
import type { VersionRecord } from '@pkg/protocol';
import type { ProjectFs } from '../files/project-fs.js';
import type { EngineInstaller } from './installer.js';

/** One entry of a manifest's `scopedRegistries`: which package names come from which registry. */
export interface ScopedRegistry {
  name: string;
  url: string;
  scopes: string[];
}

/** What the commands read from a project manifest, whatever the engine's file looks like. */
export interface ProjectManifest {
  /** Package name → the version (or other reference: file path, git URL) the project asks for. */
  dependencies: Record<string, string>;
  /** Empty for engines without scoped registries. */
  scopedRegistries: ScopedRegistry[];
  /** The manifest's own default registry (Unity's top-level `registry`), when it names one. */
  registry?: string;
}

/** A manifest as read from disk: its exact text (edits start from it) and what it says. */
export interface ManifestFile {
  path: string;
  text: string;
  manifest: ProjectManifest;
}

/** The changes a command makes to a manifest; everything not named stays byte for byte. */
export interface ManifestChange {
  /** Versions to write: existing dependencies are changed in place, new ones added. */
  set?: Record<string, string>;
  /** Dependencies to remove. */
  remove?: string[];
  /**
   * The scoped-registry entry of the registry in use, identified by `url`, with its complete new
   * list of scopes: created when missing, rewritten when its scopes differ, removed when the list
   * is empty. Other entries are never touched.
   */
  registry?: ScopedRegistry;
  /** Several entries changed at once, each as `registry` describes. */
  registries?: ScopedRegistry[];
}

/** The project's engine version, as far as it could be read. */
export interface EngineVersion {
  /** As the project states it, e.g. `2022.3.10f1`; null when the project does not say. */
  text: string | null;
  /**
   * Set when the version is missing or unreadable: compatibility checks are then off, and this
   * says so to the user.
   */
  warning?: string;
}

export interface Engine {
  /** The identifier used by `--engine` and in reports, e.g. `unity`. */
  readonly id: string;
  /** How people write the engine's name, e.g. `Unity`. */
  readonly displayName: string;
  /** The version-record field naming the minimum engine version, e.g. `unity`. */
  readonly versionField: string;
  /** Whether manifests list which registry serves which packages (`scopedRegistries`). */
  readonly usesScopedRegistries: boolean;
  /**
   * The engine maker's registry, which serves every package no scoped registry claims (Unity's
   * https://packages.unity.com). pkg never asks it: the editor fetches and updates those itself.
   */
  readonly ownRegistry?: string;
  /** The manifest's path relative to the project root, for messages and backups. */
  readonly manifestRelativePath: string;

  /** True when `dir` is the root of a project of this engine. */
  detect(dir: string, fs: ProjectFs): Promise<boolean>;

  /**
   * When `dir` holds a project of a version of this engine that `pkg` does not support (Godot
   * 3), why, for the error that replaces "no supported engine detected"; else null.
   */
  unsupportedProject?(dir: string, fs: ProjectFs): Promise<ClientErrorParams<'ENGINE_UNSUPPORTED'> | null>;
  readEngineVersion(project: string, fs: ProjectFs): Promise<EngineVersion>;
  /** Reads and validates the manifest; throws a clear error when it is missing or malformed. */
  readManifest(project: string, fs: ProjectFs): Promise<ManifestFile>;
  /** The new manifest text with `change` applied (pure: nothing is written). */
  editManifest(file: ManifestFile, change: ManifestChange): string;
  /**
   * Writes `text` as the manifest atomically, then reads it back and validates it; returns what
   * was read back. Throws when the text does not come back as a valid manifest.
   */
  writeManifest(project: string, text: string, fs: ProjectFs): Promise<ManifestFile>;
  /** Versions the engine itself resolved (Unity's `packages-lock.json`); empty when unknown. */
  readResolvedVersions(project: string, fs: ProjectFs): Promise<Record<string, string>>;

  /** True for packages that ship with the engine and never come from a registry. */
  isBuiltIn(name: string): boolean;
  /** True when a project at `version` can use the package version `record`. */
  isCompatible(record: VersionRecord, version: EngineVersion): boolean;
  /** The engine version `record` asks for, as a person reads it (`2022.3.10f1`); null for none. */
  requirementOf(record: VersionRecord): string | null;
  /** True when `text` is an engine version of this engine, for `--engine-version` and `engineVersion`. */
  isVersionText(text: string): boolean;
  /**
   * Present for engines whose packages `pkg` installs itself (Godot, Unreal): the engine reads
   * only a folder of files, so `pkg` extracts packages into the project, edits the project file
   * and keeps a lock. Absent for Unity, whose Package Manager installs what the manifest lists.
   */
  readonly installer?: EngineInstaller;
}
