/**
 * The evidence engine's public surface: the one barrel. Usable without an editor
 * (tests, a command line, an MCP server).
 */
export * from './errors.js';
export * from './utf8.js';
export * from './json.js';
export * from './integrity.js';
export * from './blobs/blobKey.js';
export * from './blobs/blobStore.js';
export * from './runs/types.js';
