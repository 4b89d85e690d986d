export * from './registry.js';
export * from './tarballs.js';
export * from './publish-body.js';
export * from './http.js';
export * from './packages.js';
export * from './spawn-registry.js';
export * from './proxy.js';
export * from './certificates.js';
