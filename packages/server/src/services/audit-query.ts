import { ProtocolError } from '@pkg/protocol';
import type { AuditQuery, ChangeOutcome } from '../storage/ports.js';

export const DEFAULT_AUDIT_LIMIT = 100;
export const MAX_AUDIT_LIMIT = 1000;
const OUTCOMES: readonly ChangeOutcome[] = ['success', 'refused', 'failed'];

/** The filters as a reader writes them (command-line options, query parameters). */
export interface AuditFilters {
  user?: string | undefined;
  package?: string | undefined;
  action?: string | undefined;
  outcome?: string | undefined;
  since?: string | undefined;
  until?: string | undefined;
  before?: string | undefined;
  limit?: string | undefined;
}

/** Checks the filters and makes the store's query; a bad one is a validation error naming it. */
export function parseAuditQuery(filters: AuditFilters): AuditQuery {
  const query: AuditQuery = { limit: DEFAULT_AUDIT_LIMIT };
  for (const key of ['user', 'package', 'action'] as const) {
    const value = filters[key];
    if (value === undefined) continue;
    if (value.length === 0 || value.length > 214) throw invalid(`'${key}' must be 1 to 214 characters`);
    query[key] = value;
  }
  if (filters.outcome !== undefined) {
    if (!(OUTCOMES as readonly string[]).includes(filters.outcome))
      throw invalid(`'outcome' must be one of ${OUTCOMES.join(', ')}`);
    query.outcome = filters.outcome as ChangeOutcome;
  }
  if (filters.since !== undefined) query.since = time('since', filters.since, false);
  if (filters.until !== undefined) query.until = time('until', filters.until, true);
  if (filters.before !== undefined) {
    if (!/^[1-9]\d{0,17}$/.test(filters.before)) throw invalid("'before' must be an entry id");
    query.before = filters.before;
  }
  if (filters.limit !== undefined) {
    const limit = Number(filters.limit);
    if (!/^\d+$/.test(filters.limit) || limit < 1 || limit > MAX_AUDIT_LIMIT)
      throw invalid(`'limit' must be from 1 to ${MAX_AUDIT_LIMIT}`);
    query.limit = limit;
  }
  return query;
}

/** An ISO time, or a day (`2026-11-27`: its start for since, its end for until). */
function time(name: string, value: string, endOfDay: boolean): string {
  const day = /^\d{4}-\d{2}-\d{2}$/.test(value);
  const parsed = Date.parse(day ? `${value}T00:00:00.000Z` : value);
  if (Number.isNaN(parsed) || !/^\d{4}-\d{2}-\d{2}/.test(value)) {
    throw invalid(`'${name}' must be a day (2026-11-27) or an ISO time (2026-11-27T10:00:00Z)`);
  }
  return new Date(day && endOfDay ? parsed + 86_399_999 : parsed).toISOString();
}

function invalid(message: string): ProtocolError {
  return new ProtocolError('VALIDATION_ERROR', message);
}
