import { randomBytes } from 'node:crypto';
import semver from 'semver';
import { ProtocolError, isSemverRange, packageNotFound } from '@pkg/protocol';
import type { Caller } from '../context.js';
import type { ServerDeps } from '../deps.js';
import { ADVISORY_SEVERITIES, type AdvisoryRecord, type AdvisorySeverity, type TenantId } from '../storage/ports.js';
import { isCachedCopy } from './uplinks/upstream-document.js';
import type { UpstreamAdvisories, UpstreamAdvisory } from './uplinks/upstream-advisories.js';
import type { UplinkRules } from '../config/uplink-config.js';
import { isObject } from './json-shapes.js';
import { isAdministrator } from './administrators.js';
import { readOnlyToken } from './caller-rules.js';

/** One advisory as npm's bulk endpoint answers it. */
export interface BulkAdvisory {
  id: string;
  url: string;
  title: string;
  severity: AdvisorySeverity;
  vulnerable_versions: string;
  /** Beyond npm's fields (npm ignores it): the versions that fix it, for `pkg list` and `pkg update`. */
  patched_versions: string;
  cwe: string[];
  cvss: { score: number; vectorString: string | null };
}

const ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$/;
const MAX_TITLE = 200;
const MAX_DESCRIPTION = 10_000;
/** Most package names one audit request may ask about (npm sends one per installed package). */
const MAX_AUDIT_NAMES = 10_000;

export type AdvisoryServiceDeps = Pick<ServerDeps, 'advisories' | 'packages' | 'registry' | 'now'>;

/** Whether `user` administers registry `tenant` (administrators.ts answers it in the server). */
export type IsAdministrator = (tenant: TenantId, user: string) => Promise<boolean>;

/**
 * Security advisories: a package's maintainers and the registry's administrators publish and
 * withdraw them; `npm audit` (the bulk and the older quick-audit endpoint) and `pkg audit` read
 * the ones in force. A withdrawn advisory is kept, so that its id names one thing forever.
 */
export class AdvisoryService {
  readonly #deps: AdvisoryServiceDeps;
  readonly #isAdministrator: IsAdministrator;
  readonly #upstream: UpstreamAdvisories | undefined;

  constructor(deps: AdvisoryServiceDeps, options: { isAdministrator?: IsAdministrator; upstream?: UpstreamAdvisories } = {}) {
    this.#deps = deps;
    this.#isAdministrator = options.isAdministrator ?? ((tenant, user) => isAdministrator(deps.registry.users, tenant, user));
    this.#upstream = options.upstream;
  }

  /** The package's advisories in force (withdrawn ones too when asked), oldest first. */
  async list(tenant: TenantId, name: string, options: { withdrawn?: boolean } = {}): Promise<AdvisoryRecord[]> {
    const all = await this.#deps.advisories.list(tenant, name);
    return options.withdrawn ? all : all.filter((a) => a.withdrawnAt === null);
  }

  /**
   * Publishes (or, for an id the package has, replaces) an advisory. Only a maintainer of a
   * package published here may: a proxied package's advisories are its upstream's.
   */
  async publish(
    tenant: TenantId,
    caller: Caller,
    name: string,
    body: unknown,
  ): Promise<{ advisory: AdvisoryRecord; created: boolean }> {
    await this.#requireOwnPackage(tenant, caller, name);
    const input = parseAdvisoryInput(body);
    const existing =
      input.id === undefined ? undefined : (await this.#deps.advisories.list(tenant, name)).find((a) => a.id === input.id);
    const now = this.#deps.now().toISOString();
    const advisory: AdvisoryRecord = {
      name,
      id: input.id ?? `PKG-${randomBytes(6).toString('hex').toUpperCase()}`,
      severity: input.severity,
      vulnerableVersions: input.vulnerableVersions,
      patchedVersions: input.patchedVersions,
      title: input.title,
      description: input.description,
      url: input.url,
      publishedBy: existing?.publishedBy ?? caller.user,
      publishedAt: existing?.publishedAt ?? now,
      updatedAt: now,
      withdrawnAt: null,
    };
    await this.#deps.advisories.put(tenant, advisory);
    return { advisory, created: existing === undefined };
  }

  async withdraw(tenant: TenantId, caller: Caller, name: string, id: string): Promise<AdvisoryRecord> {
    await this.#requireOwnPackage(tenant, caller, name);
    const existing = (await this.#deps.advisories.list(tenant, name)).find((a) => a.id === id);
    if (!existing) throw new ProtocolError('NOT_FOUND', `'${name}' has no advisory '${short(id)}'`);
    if (existing.withdrawnAt !== null) return existing;
    const withdrawn = { ...existing, withdrawnAt: this.#deps.now().toISOString() };
    await this.#deps.advisories.put(tenant, withdrawn);
    return withdrawn;
  }

  /**
   * npm's bulk advisory request, `{<name>: [<version>, …]}`: for each name the advisories in
   * force that affect at least one of the versions asked about: this registry's, then, for names
   * an uplink covers, the upstream's (see UpstreamAdvisories). `notes` say which upstreams could
   * not be asked; the answer is complete otherwise.
   */
  async bulk(
    tenant: TenantId,
    body: unknown,
    advisoryUrl: (a: AdvisoryRecord) => string,
    uplinks?: UplinkRules,
  ): Promise<{ answer: Record<string, AuditedAdvisory[]>; notes: string[] }> {
    const { found, notes } = await this.#affecting(tenant, parseBulkRequest(body), uplinks);
    const answer: Record<string, AuditedAdvisory[]> = {};
    for (const [name, advisories] of found) {
      answer[name] = advisories.map((a) => ('record' in a ? bulkAdvisory(a.record, advisoryUrl(a.record)) : a.upstream));
    }
    return { answer, notes };
  }

  /**
   * npm's older quick-audit request (a package-lock: `dependencies` of lockfile v1/v2, or
   * `packages` of v2/v3), answered in its format: `{advisories: {<key>: {…, module_name,
   * findings}}, metadata}`. npm falls back to it when the bulk request fails.
   */
  async quick(
    tenant: TenantId,
    body: unknown,
    advisoryUrl: (a: AdvisoryRecord) => string,
    uplinks?: UplinkRules,
  ): Promise<{ answer: QuickAuditReport; notes: string[] }> {
    const installed = installedVersions(body);
    const asked = new Map([...installed].map(([name, versions]) => [name, [...versions]]));
    const { found, notes } = await this.#affecting(tenant, asked, uplinks);
    const advisories: QuickAuditReport['advisories'] = {};
    const vulnerabilities: Record<AdvisorySeverity, number> = { info: 0, low: 0, moderate: 0, high: 0, critical: 0 };
    for (const [name, list] of found) {
      for (const item of list) {
        const entry = 'record' in item ? bulkAdvisory(item.record, advisoryUrl(item.record)) : item.upstream;
        const range = entry.vulnerable_versions;
        const versions = (asked.get(name) ?? []).filter(
          (v) =>
            semver.validRange(range) === null ||
            (semver.valid(v) !== null && semver.satisfies(v, range, { includePrerelease: true })),
        );
        vulnerabilities[entry.severity as AdvisorySeverity] += versions.length;
        const upstream = 'upstream' in item ? item.upstream : undefined;
        advisories[`${name}:${String(entry.id)}`] = {
          ...entry,
          module_name: name,
          patched_versions:
            'record' in item
              ? item.record.patchedVersions
              : typeof upstream?.patched_versions === 'string'
                ? upstream.patched_versions
                : '<0.0.0-0',
          overview: 'record' in item ? item.record.description : typeof upstream?.overview === 'string' ? upstream.overview : '',
          findings: versions.map((version) => ({ version, paths: [name] })),
        };
      }
    }
    const total = [...installed.values()].reduce((n, v) => n + v.size, 0);
    return {
      answer: {
        actions: [],
        advisories,
        muted: [],
        metadata: { vulnerabilities, dependencies: total, devDependencies: 0, optionalDependencies: 0, totalDependencies: total },
      },
      notes,
    };
  }

  /** This registry's advisories that affect a version asked about, then the uplinks' (an id given here wins). */
  async #affecting(
    tenant: TenantId,
    asked: ReadonlyMap<string, readonly string[]>,
    uplinks: UplinkRules | undefined,
  ): Promise<{ found: Map<string, Found[]>; notes: string[] }> {
    const [local, upstream] = await Promise.all([
      this.#deps.advisories.inForce(tenant, [...asked.keys()]),
      uplinks !== undefined && this.#upstream !== undefined
        ? this.#upstream.bulk(tenant, uplinks, asked)
        : { advisories: new Map<string, UpstreamAdvisory[]>(), notes: [] },
    ]);
    const found = new Map<string, Found[]>();
    for (const [name, advisories] of local) {
      const versions = asked.get(name) ?? [];
      const affecting = advisories.filter((a) => versions.some((v) => affects(a, v)));
      if (affecting.length > 0)
        found.set(
          name,
          affecting.map((record) => ({ record })),
        );
    }
    for (const [name, advisories] of upstream.advisories) {
      const mine = found.get(name) ?? [];
      const ids = new Set(mine.map((a) => ('record' in a ? a.record.id : '')));
      const theirs = advisories.filter((a) => !ids.has(String(a.id))).map((a) => ({ upstream: a }));
      if (mine.length + theirs.length > 0) found.set(name, [...mine, ...theirs]);
    }
    return { found, notes: upstream.notes };
  }

  /**
   * What the web page of a package shows: this registry's advisories (withdrawn ones too) and,
   * for a name an uplink covers, the upstream's that affect one of `versions`, from the uplink
   * (cached for its maxAge; while it is down, what was cached, however old). `notes` say which
   * upstream could not be asked; the page is never refused for it.
   */
  async ofPackage(
    tenant: TenantId,
    name: string,
    versions: readonly string[],
    uplinks: UplinkRules | undefined,
  ): Promise<{
    own: AdvisoryRecord[];
    upstream: { uplink: string; advisories: UpstreamAdvisory[] } | undefined;
    notes: string[];
  }> {
    const uplink = uplinks?.match(name);
    const [own, answer] = await Promise.all([
      this.#deps.advisories.list(tenant, name),
      uplink !== undefined && this.#upstream !== undefined && versions.length > 0
        ? this.#upstream.bulk(tenant, uplinks!, new Map([[name, versions]]))
        : undefined,
    ]);
    const upstream =
      uplink !== undefined && answer !== undefined
        ? { uplink: uplink.name, advisories: answer.advisories.get(name) ?? [] }
        : undefined;
    return { own, upstream, notes: answer?.notes ?? [] };
  }

  /** Whether `caller` may publish and withdraw the package's advisories (the web page shows its forms only then). */
  async mayManage(tenant: TenantId, caller: Caller, name: string): Promise<boolean> {
    return (await this.#refusal(tenant, caller, name)) === undefined;
  }

  async #requireOwnPackage(tenant: TenantId, caller: Caller, name: string): Promise<void> {
    const refusal = await this.#refusal(tenant, caller, name);
    if (refusal) throw refusal;
  }

  /**
   * Who may publish and withdraw a package's advisories: its maintainers, who know its flaws
   * first, and the registry's administrators, who must be able to warn about a package whose
   * maintainers are gone or are the problem. The refusal for anyone else.
   */
  async #refusal(tenant: TenantId, caller: Caller, name: string): Promise<ProtocolError | undefined> {
    if (caller.readonly) return readOnlyToken();
    const stored = await this.#deps.packages.package(tenant, name).read();
    if (!stored || stored.unpublished) return packageNotFound(name);
    if (isCachedCopy(stored.document)) {
      return new ProtocolError('FORBIDDEN', `'${name}' comes from an upstream registry: its advisories are the upstream's`);
    }
    if (stored.document.maintainers.some((m) => m.name === caller.user)) return undefined;
    if (await this.#isAdministrator(tenant, caller.user)) return undefined;
    return new ProtocolError(
      'FORBIDDEN',
      `Only the maintainers of '${name}' and this registry's administrators may publish or withdraw its advisories; '${caller.user}' is neither`,
    );
  }
}

/** Whether `version` is one the advisory affects (prereleases included, as npm audit counts them). */
export function affects(advisory: Pick<AdvisoryRecord, 'vulnerableVersions'>, version: string): boolean {
  return semver.valid(version) !== null && semver.satisfies(version, advisory.vulnerableVersions, { includePrerelease: true });
}

export function bulkAdvisory(advisory: AdvisoryRecord, url: string): BulkAdvisory {
  return {
    id: advisory.id,
    url: advisory.url ?? url,
    title: advisory.title,
    severity: advisory.severity,
    vulnerable_versions: advisory.vulnerableVersions,
    patched_versions: advisory.patchedVersions,
    cwe: [],
    cvss: { score: 0, vectorString: null },
  };
}

/** An advisory of an audit's answer: this registry's, or an upstream's as the upstream wrote it. */
export type AuditedAdvisory = BulkAdvisory | UpstreamAdvisory;

/** An advisory found for an audit: this registry's record, or an upstream's entry. */
type Found = { record: AdvisoryRecord } | { upstream: UpstreamAdvisory };

export interface QuickAuditReport {
  actions: never[];
  advisories: Record<
    string,
    AuditedAdvisory & {
      module_name: string;
      patched_versions: string;
      overview: string;
      findings: { version: string; paths: string[] }[];
    }
  >;
  muted: never[];
  metadata: {
    vulnerabilities: Record<AdvisorySeverity, number>;
    dependencies: number;
    devDependencies: number;
    optionalDependencies: number;
    totalDependencies: number;
  };
}

/** The name and version of every package a package-lock lists (v1/v2 `dependencies`, v2/v3 `packages`). */
function installedVersions(body: unknown): Map<string, Set<string>> {
  if (!isObject(body)) throw new ProtocolError('BAD_REQUEST', 'the audit request must be a package-lock JSON object');
  const found = new Map<string, Set<string>>();
  const add = (name: unknown, version: unknown) => {
    if (typeof name !== 'string' || typeof version !== 'string' || name === '') return;
    if (!found.has(name) && found.size >= MAX_AUDIT_NAMES)
      throw invalid(`an audit asks about at most ${MAX_AUDIT_NAMES} packages`);
    found.set(name, (found.get(name) ?? new Set()).add(version));
  };
  const walk = (dependencies: unknown, depth: number) => {
    if (!isObject(dependencies) || depth > 64) return;
    for (const [name, entry] of Object.entries(dependencies)) {
      if (!isObject(entry)) continue;
      add(name, entry.version);
      walk(entry.dependencies, depth + 1);
    }
  };
  walk(body.dependencies, 0);
  if (isObject(body.packages)) {
    for (const [where, entry] of Object.entries(body.packages)) {
      if (where === '' || !isObject(entry)) continue;
      const name =
        typeof entry.name === 'string' ? entry.name : where.slice(where.lastIndexOf('node_modules/') + 'node_modules/'.length);
      add(name, entry.version);
    }
  }
  return found;
}

interface AdvisoryInput {
  id: string | undefined;
  severity: AdvisorySeverity;
  vulnerableVersions: string;
  patchedVersions: string;
  title: string;
  description: string;
  url: string | null;
}

/** The body of a publish: `{id?, severity, vulnerable_versions, patched_versions?, title, description?, url?}`. */
export function parseAdvisoryInput(body: unknown): AdvisoryInput {
  if (!isObject(body)) throw new ProtocolError('BAD_REQUEST', 'the advisory must be a JSON object');
  const known = new Set(['id', 'severity', 'vulnerable_versions', 'patched_versions', 'title', 'description', 'url']);
  const unknown = Object.keys(body).find((key) => !known.has(key));
  if (unknown !== undefined) throw invalid(`unknown advisory field '${short(unknown)}'`);
  const { id, severity, vulnerable_versions, patched_versions, title, description, url } = body;
  if (id !== undefined && (typeof id !== 'string' || !ID.test(id))) {
    throw invalid(
      "'id' must be 1–64 letters, digits, '.', '_', ':' or '-' (e.g. CVE-2026-1234), starting with a letter or digit",
    );
  }
  if (typeof severity !== 'string' || !(ADVISORY_SEVERITIES as readonly string[]).includes(severity)) {
    throw invalid(`'severity' must be one of ${ADVISORY_SEVERITIES.join(', ')}`);
  }
  if (typeof vulnerable_versions !== 'string' || vulnerable_versions.trim() === '' || !isSemverRange(vulnerable_versions)) {
    throw invalid("'vulnerable_versions' must be a semver range of the affected versions, e.g. <1.2.3");
  }
  if (patched_versions !== undefined && (typeof patched_versions !== 'string' || !isSemverRange(patched_versions))) {
    throw invalid("'patched_versions' must be a semver range of the fixed versions, e.g. >=1.2.3");
  }
  if (typeof title !== 'string' || title.trim() === '' || title.length > MAX_TITLE) {
    throw invalid(`'title' must be a non-empty string of at most ${MAX_TITLE} characters`);
  }
  if (description !== undefined && (typeof description !== 'string' || description.length > MAX_DESCRIPTION)) {
    throw invalid(`'description' must be a string of at most ${MAX_DESCRIPTION} characters`);
  }
  if (url !== undefined && url !== null && (typeof url !== 'string' || !isHttpUrl(url))) {
    throw invalid("'url' must be an http(s) URL");
  }
  return {
    id: id,
    severity: severity as AdvisorySeverity,
    vulnerableVersions: vulnerable_versions,
    patchedVersions: patched_versions ?? '<0.0.0-0',
    title: title.trim(),
    description: description ?? '',
    url: url ?? null,
  };
}

/** `{<name>: [<version>, …]}`, as npm sends it. */
function parseBulkRequest(body: unknown): Map<string, string[]> {
  if (!isObject(body)) throw new ProtocolError('BAD_REQUEST', 'the audit request must be a JSON object of package names');
  const entries = Object.entries(body);
  if (entries.length > MAX_AUDIT_NAMES) throw invalid(`an audit asks about at most ${MAX_AUDIT_NAMES} packages`);
  const asked = new Map<string, string[]>();
  for (const [name, versions] of entries) {
    if (!Array.isArray(versions) || !versions.every((v) => typeof v === 'string')) {
      throw new ProtocolError('BAD_REQUEST', `the versions of '${short(name)}' must be a list of strings`);
    }
    asked.set(name, versions);
  }
  return asked;
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'https:' || url.protocol === 'http:') && value.length <= 2048;
  } catch {
    return false;
  }
}

function invalid(details: string): ProtocolError {
  return new ProtocolError('VALIDATION_ERROR', details);
}

function short(value: string): string {
  const printable = JSON.stringify(value).slice(1, -1);
  return printable.length > 80 ? `${printable.slice(0, 80)}…` : printable;
}
