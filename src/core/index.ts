/**
 * The evidence engine's public surface: the one barrel. Usable without an editor
 * (tests, a command line, the MCP server). Layers and where bytes live:
 * docs/architecture.md §2, §3; the promises each file keeps: docs/contracts.md.
 *
 * Map:
 * - `integrity.ts`       manifests (per-chunk sha256, newline counts) and every verified read;
 *                        `sha256.ts` (the one sha256 helper), `manifestCache.ts` (the one manifest cache)
 * - `utf8.ts`, `json.ts` strict UTF-8 and code-point boundaries; canonical JSON
 * - `errors.ts`          the contract's error sentences and `EvidenceError` (safe to show a model)
 * - `artifactRef.ts`     artifact identity (`artifact-<sha256>`, the record, range paths) (§1.1, §1.3)
 * - `artifacts.ts`       artifacts of `evidence_readFile`: content-addressed keys of the blob store (§1.1, §2.9)
 * - `evidenceWorkspace.ts` bounded observations and `.tool-artifacts/…` range reads (§1.2, §1.3)
 * - `storageLayout.ts`   one workspace's folders and tenant (§2.6)
 * - `blobs/`             `BlobKey`, the `BlobStore` interface, its adapters (filesystem, memory, S3),
 *                        and `verifiedBlobs.ts` (manifest sidecars, verified reads) (§2.3)
 * - `runs/`              the run layer (§2): `runStore.ts` (runs, records, handles, reads),
 *                        `runLog.ts`, `decisions.ts` (pure), `handles.ts`, `reader.ts` +
 *                        `patternSearch.ts` (`read_tool_output`, §2.5), `capture.ts` + `command.ts`
 *                        (commands and their streams), `observation.ts` (what a model sees)
 * - `tools/`             what every front end shares about the evidence tools: names, inputs and
 *                        validators, the 8 KiB rule, replies, recording
 * - `course/`           what only the course contract uses (§1.4): `agent.ts` (the scripted JSON
 *                        agent loop), `localCommands.ts` (the program runner of `run_command`)
 * - `localWorkspace.ts`, `toolWorkspace.ts`  a folder as a tool workspace (confined, secret-free reads
 *                        the extension uses; `write_file`/`run_command` for the course) and their shape
 */
export * from './errors.js';
export * from './utf8.js';
export * from './json.js';
export * from './integrity.js';
export * from './sha256.js';
export * from './blobs/blobKey.js';
export * from './blobs/blobStore.js';
export * from './runs/types.js';
export * from './toolWorkspace.js';
export * from './artifactRef.js';
export * from './artifacts.js';
export * from './evidenceWorkspace.js';
export * from './localWorkspace.js';
export * from './course/agent.js';
export * from './blobs/fsBlobStore.js';
export * from './blobs/memoryBlobStore.js';
export type { S3BlobStoreOptions } from './blobs/s3BlobStore.js';
export * from './blobs/verifiedBlobs.js';
export * from './blobs/openBlobStore.js';
export * from './runs/decisions.js';
export * from './runs/handles.js';
export * from './runs/runLog.js';
export * from './runs/reader.js';
export * from './runs/patternSearch.js';
export * from './runs/searchAll.js';
export * from './runs/observation.js';
export * from './runs/runStore.js';
export * from './runs/stats.js';
export * from './storageLayout.js';
export * from './stores.js';
export * from './tools/modelText.js';
export * from './tools/inputs.js';
export * from './tools/toolDef.js';
export * from './tools/workingDirectory.js';
export * from './tools/runCommand.js';
export * from './tools/invokeTool.js';
export * from './tools/table.js';
export * from './tools/callRunner.js';
export * from './tools/readToolOutput.js';
export * from './tools/readFile.js';
export * from './tools/fileReads.js';
