import type { TenantId } from '../storage/ports.js';

/**
 * The key under which anything of a tenant is cached, in a node's memory or in a shared store
 * (Redis counters): the tenant's name and its incarnation (`TenantRecord.incarnation`), so that
 * a tenant deleted and created again under the same name finds nothing of the deleted one.
 * Given by `TenantService.scopeOf`; the global registry's is `''`.
 */
export type TenantScopeOf = (tenant: TenantId) => string;

/** One incarnation per tenant name: for services tested alone, where no tenant is ever re-created. */
export const singleIncarnation: TenantScopeOf = (tenant) => tenant;
