/**
 * The one barrel, curated to what the front ends, tests and benches import; anything else stays behind its own
 * module. The map of folders: docs/architecture.md §2.
 */

export { ErrorText, EvidenceError } from './errors.js';
export { decodeUtf8Strict, floorCodePointBoundary, ceilCodePointBoundary } from './utf8.js';
export { canonicalJson, isRecord } from './json.js';
export { countNewlines } from './integrity/integrity.js';

export { isSafeSegment } from './blobs/blobKey.js';
export { type BlobStore } from './blobs/blobStore.js';
export { FsBlobStore } from './blobs/fsBlobStore.js';
export { type S3BlobSettings, type BlobSettings } from './blobs/openBlobStore.js';

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

export { ArtifactStore } from './artifacts/artifacts.js';
export { parseRangePath, BoundedEvidenceWorkspace } from './workspace/evidenceWorkspace.js';
export { LocalErrorText, LocalWorkspace } from './workspace/localWorkspace.js';

export { RunStore } from './runs/store/runStore.js';

export { TeamStore } from './team/teamStore.js';
export { CombinedRuns } from './team/combinedRuns.js';
export { publishRun, type PublishReport } from './team/publish.js';
export { readThrough, type HandleReader } from './team/teamReads.js';
export { configuredTeamStores, teamStoreOf, type NamedTeamStore } from './team/teamConfig.js';
export { teamLocation, teamStoreId, teamUri, type TeamCredentials, type TeamLocation } from './team/teamLocation.js';
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
