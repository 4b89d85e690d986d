export { buildApp, type BuiltApp, type BuildOptions } from './app.js';
export { readTlsFiles } from './config/tls.js';
export { loadConfig, ConfigError, type Config } from './config/config.js';
export { SETTINGS, envName } from './config/settings.js';
export { createStorage, collectOrphanBlobs, type Storage } from './storage/create-storage.js';
export { serverDeps, type ServerDeps } from './deps.js';
export * from './storage/ports.js';
