import type { CommandContext } from '../context.js';
import type { OpenProject } from './open-project.js';
import type { ProjectRegistries } from './project-registries.js';
import type { DocumentMap } from './registry-documents.js';

/**
 * Unity 6.3 and later check the signature Unity's packing tool puts inside a package
 * (`package/.attestation.p7m`) and show packages without one as unsigned; Unity 6.7 blocks
 * unsigned third-party packages by default. After `pkg add` in such a project, each added
 * package the registry recorded as unsigned is named in a warning, with what the Editor does.
 */
export async function warnUnsignedForUnity(
  ctx: CommandContext,
  open: OpenProject,
  registries: ProjectRegistries,
  added: readonly { package: string; version: string }[],
): Promise<void> {
  if (open.engine.id !== 'unity' || !checksSignatures(open.version.text) || added.length === 0) return;
  const documents: DocumentMap = new Map();
  await registries.set.fetch(
    added.map((a) => a.package),
    documents,
  );
  const blocks = blocksUnsigned(open.version.text);
  for (const { package: name, version } of added) {
    const record = documents.get(name)?.versions?.[version];
    if (!record || (record.dist as { unitySignature?: unknown }).unitySignature) continue;
    ctx.reporter.warn(
      `${name}@${version} is not signed by Unity's packing tool: ${open.engineLabel} shows it as unsigned in the Package Manager` +
        (blocks
          ? ' and blocks unsigned third-party packages by default, so it will not be imported until the project allows it.'
          : '; from Unity 6.7 the Editor blocks unsigned third-party packages by default.'),
    );
  }
}

/** Unity 6.3 (`6000.3`) or later. */
function checksSignatures(version: string | null): boolean {
  return atLeast(version, 3);
}

/** Unity 6.7 (`6000.7`) or later. */
function blocksUnsigned(version: string | null): boolean {
  return atLeast(version, 7);
}

function atLeast(version: string | null, minorOf6000: number): boolean {
  const match = /^(\d+)\.(\d+)/.exec(version ?? '');
  if (!match) return false;
  const major = Number(match[1]);
  return major > 6000 || (major === 6000 && Number(match[2]) >= minorOf6000);
}
