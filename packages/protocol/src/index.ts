export * from './errors.js';
export * from './names.js';
export * from './versions.js';
export * from './engine-version.js';
export * from './types.js';
export * from './engine-fields.js';
export * from './dependency-fields.js';
