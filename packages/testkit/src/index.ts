export * from './registry.js';
export * from './tarballs.js';
export * from './publish-body.js';
export * from './http.js';
export * from './backing-services.js';
