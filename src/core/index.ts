/**
 * The evidence engine's public surface: the one barrel. Usable without an editor
 * (tests, a command line, the MCP server). Layers and where bytes live:
 * docs/architecture.md §2, §3; the promises each file keeps: docs/contracts.md.
 *
 * Map (each subsystem a folder, importing only downwards; docs/architecture.md §2.1):
 * - `files/`             file identity, the secret deny list, confined opening (§5.3)
 * - `integrity/`         manifests (per-chunk sha256, newline counts) and every verified read;
 *                        the verified-chunk cache and its marks on disk, `sha256.ts`, `manifestCache.ts`
 * - `utf8.ts`, `json.ts` strict UTF-8 and code-point boundaries; canonical JSON
 * - `errors.ts`          the contract's error sentences and `EvidenceError` (safe to show a model)
 * - `artifacts/`         artifact identity (`artifact-<sha256>`, ranges) and the artifacts of
 *                        `evidence_readFile`: content-addressed keys of the blob store (§1.1, §2.9)
 * - `workspace/`         tool workspaces: the bounded evidence workspace (§1.2, §1.3), a local folder
 *                        (confined, secret-free reads; `write_file`/`run_command` for the course), their shape
 * - `storageLayout.ts`   one workspace's folders and tenant (§2.6); `stores.ts` opens them
 * - `blobs/`             `BlobKey`, the `BlobStore` interface, its adapters (filesystem, memory, S3),
 *                        and `verifiedBlobs.ts` (manifest sidecars, verified reads) (§2.3)
 * - `runs/`              the run layer (§2), a folder per idea: `log/` (the records' schema, the
 *                        JSON Lines log, handles), `processes/` (spawn, tree kill, watchdog),
 *                        `errorLines/`, `search/` (patterns in a worker), `recording/` (a live run,
 *                        captures, decisions), `catalog/` (SQLite), `usage/`, `reading/`
 *                        (`read_tool_output`, §2.5), `store/` (`RunStore`); `types.ts` its API
 * - `tools/`             what every front end shares about the evidence tools: names, inputs and
 *                        validators, the 8 KiB rule, replies, recording
 * - `reach/`             routing other agents' commands: hook decisions, the rewrite, the shim
 * - `course/`           what only the course contract uses (§1.4): `agent.ts` (the scripted JSON
 *                        agent loop); `workspace/localCommands.ts` runs its `run_command`
 */
export * from './errors.js';
export * from './utf8.js';
export * from './json.js';
export * from './integrity/integrity.js';
export * from './integrity/sha256.js';
export * from './blobs/blobKey.js';
export * from './blobs/blobStore.js';
export * from './runs/types.js';
export * from './workspace/toolWorkspace.js';
export * from './artifacts/artifactRef.js';
export * from './artifacts/artifacts.js';
export * from './workspace/evidenceWorkspace.js';
export * from './workspace/localWorkspace.js';
export * from './course/agent.js';
export * from './blobs/fsBlobStore.js';
export * from './blobs/memoryBlobStore.js';
export type { S3BlobStoreOptions } from './blobs/s3BlobStore.js';
export * from './blobs/verifiedBlobs.js';
export * from './blobs/openBlobStore.js';
export * from './runs/recording/decisions.js';
export * from './runs/log/handles.js';
export * from './runs/log/runLog.js';
export * from './runs/reading/reader.js';
export * from './runs/search/patternSearch.js';
export * from './runs/reading/searchAll.js';
export * from './runs/recording/observation.js';
export * from './runs/errorLines/errorRules.js';
export * from './runs/errorLines/errorLines.js';
export * from './runs/store/runStore.js';
export * from './runs/usage/stats.js';
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
