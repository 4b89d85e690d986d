/**
 * `pkg search` over several registries (a project's): each is asked with its own credentials,
 * each result says which registry it comes from, and one registry that cannot be asked costs
 * only its own results: the others are shown, with a warning, and the run ends with exit 1.
 */
import type { SearchObject, SearchResponse } from '@pkg/protocol';
import type { CommandContext } from '../context.js';
import { ClientError, EXIT } from '../errors/client-errors.js';
import { projectRegistryUrl } from './project-view.js';
import { parseRegistryUrl } from '../http/registry-url.js';
import type { CommandResult } from '../output/reporter.js';
import { packageDetail, searchReport, type PackageDetail } from '../output/search-report.js';

export interface MultiSearchInput {
  term: string;
  limit: number;
  detail: boolean;
  /** The registries to ask, in order; one registry searches as pkg always did. */
  registries: string[];
  /** The manifest naming them, for messages about one of its registries. */
  manifest?: string | undefined;
}

interface Answer {
  registry: string;
  response?: SearchResponse;
  details?: Map<string, PackageDetail>;
  error?: ClientError;
}

export async function searchRegistries(ctx: CommandContext, input: MultiSearchInput): Promise<CommandResult> {
  const { term, limit } = input;
  const answers: Answer[] = await Promise.all(
    input.registries.map(async (registry): Promise<Answer> => {
      try {
        const url = input.manifest ? projectRegistryUrl(registry, input.manifest) : parseRegistryUrl(registry);
        const client = await ctx.registry(url);
        const response = await client.search(term, limit, 0);
        let details: Map<string, PackageDetail> | undefined;
        if (input.detail) {
          const shown = response.objects.slice(0, limit);
          const docs = await Promise.all(shown.map((o) => client.packument(o.package.name)));
          details = new Map(docs.map((doc, i) => [shown[i]!.package.name, packageDetail(doc, shown[i]!.package.version)]));
        }
        return { registry, response, ...(details ? { details } : {}) };
      } catch (err) {
        // Alone, a registry's failure is the command's, as it always was.
        if (!(err instanceof ClientError) || input.registries.length === 1) throw err;
        return { registry, error: err };
      }
    }),
  );
  const failed = answers.filter((a) => a.error);
  if (failed.length === answers.length) throw failed[0]!.error!;
  const objects: SearchObject[] = [];
  const sources: string[] = [];
  const details = new Map<string, PackageDetail>();
  let total = 0;
  for (const answer of answers) {
    if (!answer.response) continue;
    const shown = answer.response.objects.slice(0, limit);
    objects.push(...shown);
    sources.push(...shown.map(() => answer.registry));
    total += Math.max(answer.response.total ?? 0, answer.response.objects.length);
    for (const [name, detail] of answer.details ?? []) details.set(`${answer.registry} ${name}`, detail);
  }
  for (const answer of failed) {
    ctx.reporter.warn(
      `${answer.registry} was not searched: ${answer.error!.message}${answer.error!.hint ? ` (${answer.error!.hint})` : ''}`,
    );
  }
  if (objects.length === 0 && failed.length === 0) throw new ClientError('NO_PACKAGES_FOUND', { term });
  const several = input.registries.length > 1;
  const report = searchReport({
    term,
    response: { objects, total, time: new Date().toUTCString() },
    limit: objects.length,
    ...(input.detail
      ? { details: new Map(objects.map((o, i) => [o.package.name, details.get(`${sources[i]} ${o.package.name}`)!])) }
      : {}),
    ...(several ? { sources } : {}),
  });
  if (!several) return report;
  const unreachable = failed.map((a) => ({ registry: a.registry, code: a.error!.code, error: a.error!.message }));
  return {
    json: {
      ...(failed.length > 0 ? { success: false, partial: true } : {}),
      ...report.json,
      registries: input.registries,
      unreachable,
    },
    text: [...report.text.slice(0, 3), `Registries: ${input.registries.join(', ')}`, ...report.text.slice(3)],
    ...(failed.length > 0 ? { exitCode: EXIT.FAILED } : {}),
  };
}
