import { randomBytes } from 'node:crypto';
import { LoadClient, json } from './http.js';
import { integrityOf, publish, signUp, tarballWith, versionProblem } from './registry-actions.js';
import { ResultBuilder, type ScenarioResult } from './results.js';
import type { Target } from './target.js';

export interface RaceOptions {
  /** Versions of one package published at once (50 in the full run). */
  versions: number;
  /** Publishes of one version with different bytes at once (10). */
  sameVersion: number;
  /** Packages published at once (100), spread over `users` publishers (5). */
  packages: number;
  users: number;
}

/**
 * Concurrent writes that must all land, or exactly one win: many versions of one package at
 * once; one version with different bytes from many publishers at once (one 201, the rest 409,
 * and the stored bytes are the winner's); many packages by several users at once.
 */
export async function raceScenarios(target: Target, options: RaceOptions, run: string): Promise<ScenarioResult[]> {
  const client = new LoadClient(target.url);
  try {
    return [
      await manyVersions(target, client, options.versions, run),
      await oneVersionManyBytes(target, client, options.sameVersion, run),
      await manyPackages(target, client, options.packages, options.users, run),
    ];
  } finally {
    client.close();
  }
}

async function manyVersions(target: Target, client: LoadClient, count: number, run: string): Promise<ScenarioResult> {
  const result = new ResultBuilder(`race: ${count} versions of one package`, target.profile);
  const token = await signUp(client, `racer-${run}`);
  const name = `com.race${run}.versions`;
  const versions = Array.from({ length: count }, (_, i) => `1.0.${i}`);
  const outcomes = await Promise.all(versions.map((v) => publish(client, token, name, v)));
  result.requests += count;
  const statuses = outcomes.map((o) => o.status ?? o.failure);
  result.check(
    statuses.every((s) => s === 201),
    `not every publish was 201: ${summarize(statuses)}`,
  );
  const doc = await client.request('GET', `/${name}`);
  const stored = doc.status === 200 ? Object.keys(json(doc).versions) : [];
  result.check(stored.length === count, `${stored.length} of ${count} versions are in the document`);
  for (const v of versions) {
    const problem = await versionProblem(client, name, v);
    if (problem) result.problem(problem);
  }
  result.requests += 1 + 2 * count;
  result.facts.push(`${stored.length}/${count} stored, ${summarize(statuses)}`);
  return result.finish();
}

async function oneVersionManyBytes(target: Target, client: LoadClient, count: number, run: string): Promise<ScenarioResult> {
  const result = new ResultBuilder(`race: ${count} publishes of one version, different bytes`, target.profile);
  // One publisher's many attempts (another user's would be 403 before it could race).
  const token = await signUp(client, `rival-${run}`);
  const name = `com.race${run}.contested`;
  const payloads = Array.from({ length: count }, () => randomBytes(2048));
  const outcomes = await Promise.all(payloads.map((p) => publish(client, token, name, '1.0.0', p)));
  result.requests += count;
  const statuses = outcomes.map((o) => o.status ?? o.failure);
  const winners = statuses.filter((s) => s === 201).length;
  result.check(winners === 1, `${winners} publishes answered 201, not one`);
  result.check(
    statuses.every((s) => s === 201 || s === 409),
    `answers other than 201 and 409: ${summarize(statuses)}`,
  );
  const tarball = await client.request('GET', `/${name}/-/${name}-1.0.0.tgz`);
  const doc = await client.request('GET', `/${name}`);
  result.requests += 2;
  if (tarball.status !== 200 || doc.status !== 200) {
    result.problem(`after the race: tarball ${tarball.status}, document ${doc.status}`);
  } else {
    const integrity = json(doc).versions['1.0.0']?.dist.integrity;
    result.check(integrityOf(tarball.body) === integrity, 'the stored bytes do not match the stored integrity');
    const winner = outcomes.findIndex((o) => o.status === 201);
    const expected = winner >= 0 ? integrityOf(tarballWith(name, '1.0.0', payloads[winner]!)) : undefined;
    result.check(integrity === expected, "the stored integrity is not the winner's");
  }
  result.facts.push(`${winners} winner, ${summarize(statuses)}`);
  return result.finish();
}

async function manyPackages(
  target: Target,
  client: LoadClient,
  count: number,
  users: number,
  run: string,
): Promise<ScenarioResult> {
  const result = new ResultBuilder(`race: ${count} packages by ${users} users`, target.profile);
  const tokens = await Promise.all(Array.from({ length: users }, (_, i) => signUp(client, `author-${run}-${i}`)));
  const names = Array.from({ length: count }, (_, i) => `com.race${run}.pkg${i}`);
  const outcomes = await Promise.all(names.map((name, i) => publish(client, tokens[i % users]!, name, '1.0.0')));
  result.requests += count;
  const statuses = outcomes.map((o) => o.status ?? o.failure);
  result.check(
    statuses.every((s) => s === 201),
    `not every publish was 201: ${summarize(statuses)}`,
  );
  let whole = 0;
  for (const [i, name] of names.entries()) {
    const problem = await versionProblem(client, name, '1.0.0');
    if (problem) result.problem(problem);
    const doc = await client.request('GET', `/${name}`);
    const maintainers = doc.status === 200 ? json(doc).maintainers.map((m: { name: string }) => m.name) : [];
    if (maintainers.join() !== `author-${run}-${i % users}`) result.problem(`${name}: maintainers ${maintainers.join()}`);
    else if (!problem) whole++;
  }
  result.requests += 3 * count;
  result.facts.push(`${whole}/${count} whole, ${summarize(statuses)}`);
  return result.finish();
}

function summarize(values: (number | string | undefined)[]): string {
  const counts = new Map<string, number>();
  for (const v of values) counts.set(String(v), (counts.get(String(v)) ?? 0) + 1);
  return [...counts.entries()].map(([v, n]) => `${n} × ${v}`).join(', ');
}
