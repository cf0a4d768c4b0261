/**
 * The evidence engine's public surface: the one barrel, curated to what the front ends
 * (src/extension, src/mcp, src/cli) and the tests and benches import through it; anything
 * else stays behind its own module. Usable without an editor. Layers and where bytes live:
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
 *                        (confined, secret-free reads; `write_file`/`run_command` for the agent loop), their shape
 * - `storageLayout.ts`   one workspace's folders and tenant (§2.6); `stores.ts` opens them
 * - `blobs/`             `BlobKey`, the `BlobStore` interface, its adapters (filesystem, memory, S3),
 *                        and `verifiedBlobs.ts` (manifest sidecars, verified reads) (§2.3)
 * - `runs/`              the run layer (§2), a folder per idea: `log/` (the records' schema, the
 *                        JSON Lines log, handles), `processes/` (spawn, tree kill, watchdog),
 *                        `errorLines/`, `search/` (patterns in a worker), `recording/` (a live run,
 *                        captures, decisions), `catalog/` (SQLite), `usage/`, `reading/`
 *                        (`read_tool_output`, §2.5), `store/` (`RunStore`); `types.ts` its API
 * - `team/`              team stores: runs published to S3 (`publish.ts`), mirrored and read verified
 *                        (`teamStore.ts`), handles read through them (`teamReads.ts`), listed with
 *                        this storage's runs (`combinedRuns.ts`) (§7)
 * - `tools/`             what every front end shares about the evidence tools: names, inputs and
 *                        validators, the 8 KiB rule, replies, recording
 * - `reach/`             routing other agents' commands: hook decisions, the rewrite, the shim
 * - `agentLoop/`        the scripted JSON agent loop (§1.4): `agent.ts`; `workspace/localCommands.ts`
 *                        runs its `run_command`
 */

// Errors a model may see, strict UTF-8, canonical JSON, newline counts.
export { ErrorText, EvidenceError } from './errors.js';
export { decodeUtf8Strict, floorCodePointBoundary, ceilCodePointBoundary } from './utf8.js';
export { canonicalJson, isRecord } from './json.js';
export { countNewlines } from './integrity/integrity.js';

// Blob storage: keys, the store interface, the filesystem adapter and the settings that pick one.
export { isSafeSegment } from './blobs/blobKey.js';
export { type BlobStore } from './blobs/blobStore.js';
export { FsBlobStore } from './blobs/fsBlobStore.js';
export { type S3BlobSettings, type BlobSettings } from './blobs/openBlobStore.js';

// Where a workspace's folders live, its tenant, the MCP HTTP server's info file, and opening the stores.
export {
  tenantFor,
  sharedWorkspaceStorage,
  layoutAt,
  ensureLayout,
  vscodeFileUri,
  layoutOfFolder,
  recordedTenant,
  claimTenant,
  runningMcpHttpServer,
  writeMcpHttpInfo,
  removeMcpHttpInfo,
  type StorageLayout,
  TENANT_FILE,
  EDITOR_TENANT,
  MCP_HTTP_INFO_FILE,
} from './storageLayout.js';
export { openEvidenceStores } from './stores.js';

// Artifacts and the tool workspaces (the bounded evidence workspace, a local folder).
export { ArtifactStore } from './artifacts/artifacts.js';
export { parseRangePath, BoundedEvidenceWorkspace } from './workspace/evidenceWorkspace.js';
export { LocalErrorText, LocalWorkspace } from './workspace/localWorkspace.js';

// Runs: the store and its API, the durable records, a live run, reading and searching outputs, usage.
export { RunStore } from './runs/store/runStore.js';

// Team stores: runs published to an S3 bucket, opened read-only and verified (docs/contracts.md §7).
export { TeamStore } from './team/teamStore.js';
export { CombinedRuns } from './team/combinedRuns.js';
export { publishRun, type PublishReport } from './team/publish.js';
export { readThrough, type HandleReader } from './team/teamReads.js';
export { configuredTeamStores, teamStoreOf, type NamedTeamStore } from './team/teamConfig.js';
export { teamLocation, teamUri, type TeamCredentials, type TeamLocation } from './team/teamLocation.js';
export {
  type Preservation,
  type RunRecordEvent,
  type CaptureProgressEvent,
  type RunSummary,
  type CallFilter,
  type CallReport,
  type ReadToolOutputArgs,
  type ReadToolOutputResult,
  type HandleSource,
  type CallOutcome,
  type PruneResult,
  type RunStoreApi,
} from './runs/types.js';
export {
  type RunFinishStatus,
  type PreviewRange,
  type ErrorLines,
  type AttachmentRecord,
  type CallStartedRecord,
  type CallFinishedRecord,
  type RunSource,
} from './runs/log/records.js';
export { type Disposable } from './runs/log/handles.js';
export { Run } from './runs/recording/run.js';
export { withRun } from './runs/recording/withRun.js';
export { DEFAULT_RUN_LIMITS } from './runs/recording/decisions.js';
export { searchHint } from './runs/recording/observation.js';
export { hexDump } from './runs/reading/reader.js';
export { searchAllOutputs } from './runs/reading/searchAll.js';
export {
  localDay,
  type UsageDimension,
  USAGE_DIMENSIONS,
  type UsageQuery,
  type UsageFigures,
  type UsageGroup,
  type UsageReport,
  EMPTY_FIGURES,
} from './runs/usage/stats.js';

// The evidence tools every front end offers: names, inputs, validators, the model-text bound, calls.
export {
  isEvidenceToolName,
  toolsOffered,
  toolNamesOffered,
  type EvidenceToolName,
  EvidenceToolTable,
  type AnyEvidenceTool,
} from './tools/table.js';
export { EvidenceToolNames } from './tools/inputs.js';
export { type ToolInputSchema, type ToolCallContext, type PerformCall } from './tools/toolDef.js';
export {
  utf8Bytes,
  fitsModel,
  boundModelText,
  runLabel,
  MODEL_TEXT_LIMIT_BYTES,
  CUT_MARKER,
} from './tools/modelText.js';
export { runToolCall, type CallAnswer } from './tools/callRunner.js';
export { CWD_REFUSED } from './tools/workingDirectory.js';
export { checkRunCommand, runCommandTool } from './tools/runCommand.js';
export { checkInvokeTool, type InvokeToolInput } from './tools/invokeTool.js';
export { checkReadToolOutput, readFitted, READ_STORAGE_FAILURE } from './tools/readToolOutput.js';
export { checkReadFile } from './tools/readFile.js';
export { readFileRecorded, readFileReply, EvidenceFileWorkspace } from './tools/fileReads.js';
