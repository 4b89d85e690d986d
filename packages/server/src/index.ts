export { buildApp, type BuiltApp, type BuildOptions } from './app.js';
export { readTlsFiles } from './config/tls.js';
export { loadConfig, ConfigError, type Config } from './config/config.js';
export { SETTINGS, envName } from './config/settings.js';
export {
  createStorage,
  createMemoryStorage,
  createMemoryCounterStore,
  collectOrphanBlobs,
  type Storage,
} from './storage/create-storage.js';
export { serverDeps, type ServerDeps } from './deps.js';
export * from './storage/ports.js';
export * from './storage/counter-store.js';
export { TenantService } from './services/tenant-service.js';
export type { EffectiveSettings } from './context.js';
export { TenantAdmin, AdminError, AdminUsageError } from './services/tenant-admin.js';
export { UserAdmin } from './services/user-admin.js';
export { tenantNameProblem } from './services/tenant-names.js';
