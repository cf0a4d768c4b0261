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
export * from './toolWorkspace.js';
export * from './artifacts.js';
export * from './evidenceWorkspace.js';
export * from './localWorkspace.js';
export * from './agent.js';
export * from './blobs/fsBlobStore.js';
export * from './blobs/memoryBlobStore.js';
export * from './blobs/s3BlobStore.js';
export * from './blobs/verifiedBlobs.js';
export * from './runs/decisions.js';
export * from './runs/handles.js';
export * from './runs/runLog.js';
export * from './runs/reader.js';
export * from './runs/patternSearch.js';
export * from './runs/observation.js';
export * from './runs/runStore.js';
export * from './storageLayout.js';
export * from './tools/modelText.js';
export * from './tools/inputs.js';
export * from './tools/readToolOutput.js';
export * from './tools/readFile.js';
export * from './tools/artifactRecords.js';
export * from './tools/fileReads.js';
