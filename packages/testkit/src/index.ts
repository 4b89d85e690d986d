export * from './registry.js';
export * from './tarballs.js';
export * from './publish-body.js';
export * from './http.js';
export * from './spawn-registry.js';
export * from './certificates.js';
export * from './host-request.js';
