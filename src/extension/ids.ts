import { EvidenceToolNames } from '../core/index.js';
import type { ExcerptRangeDto } from '../shared/protocol.js';

/** Must match package.json. */
export const Ids = {
  extension: 'bounded-evidence.bounded-evidence',
  /** The walkthrough's reading step. */
  readContext: 'boundedEvidence.personRead',
  commands: {
    openInspector: 'boundedEvidence.openInspector',
    runCommandAndCapture: 'boundedEvidence.runCommandAndCapture',
    importFile: 'boundedEvidence.importFile',
    verifyArtifact: 'boundedEvidence.verifyArtifact',
    openArtifact: 'boundedEvidence.openArtifact',
    pruneStorage: 'boundedEvidence.pruneStorage',
    clearAll: 'boundedEvidence.clearAll',
    /** Never in settings. */
    setS3Credentials: 'boundedEvidence.setS3Credentials',
    /**
     * Adds a team store (s3://BUCKET/PREFIX) to the user's settings, its access keys (if any) to SecretStorage;
     * optional argument: the answers (src/extension/team/addTeamEvidence.ts).
     */
    addTeamEvidence: 'boundedEvidence.addTeamEvidence',
    /** Takes a team store out of user settings, SecretStorage and this storage; optional `{ name, confirmed }`. */
    removeTeamEvidence: 'boundedEvidence.removeTeamEvidence',
    /** Lists the team stores again and mirrors their new runs. */
    refreshTeamEvidence: 'boundedEvidence.refreshTeamEvidence',
    /** Copies an `mcpServers` entry running dist/mcp.js over this workspace's storage, folder and tenant. */
    copyMcpConfig: 'boundedEvidence.copyMcpConfig',
    routeAgentTerminals: 'boundedEvidence.routeAgentTerminals',
    stopRouting: 'boundedEvidence.stopRouting',
    routeAgentTerminalsForUser: 'boundedEvidence.routeAgentTerminalsForUser',
    stopRoutingForUser: 'boundedEvidence.stopRoutingForUser',
    initAgents: 'boundedEvidence.initAgents',
    uninstallAgents: 'boundedEvidence.uninstallAgents',
    /** The only command our chat answers trust (docs/contracts.md §3.4, "Links"). */
    openEvidenceLink: 'boundedEvidence.openEvidenceLink',
    compareOutputs: 'boundedEvidence.compareOutputs',
    importAsEvidence: 'boundedEvidence.importAsEvidence',
    captureDemo: 'boundedEvidence.captureDemo',
    exportOutput: 'boundedEvidence.exportOutput',
    saveExcerptAs: 'boundedEvidence.saveExcerptAs',
    goToOutputLine: 'boundedEvidence.goToOutputLine',
    outputLineNumbers: 'boundedEvidence.outputLineNumbers',
    view: {
      refresh: 'boundedEvidence.view.refresh',
      showMore: 'boundedEvidence.view.showMore',
      openInInspector: 'boundedEvidence.view.openInInspector',
      copyHandle: 'boundedEvidence.view.copyHandle',
      verify: 'boundedEvidence.view.verify',
      openInEditor: 'boundedEvidence.view.openInEditor',
      pin: 'boundedEvidence.view.pin',
      unpin: 'boundedEvidence.view.unpin',
      deleteRun: 'boundedEvidence.view.deleteRun',
    },
  },
  /** Declared in the core: the MCP server serves the same names. */
  tools: EvidenceToolNames,
  participant: {
    id: 'bounded-evidence.agent',
    name: 'evidence',
  },
  configSection: 'boundedEvidence',
  s3CredentialsSecret: 'boundedEvidence.s3.credentials',
  views: {
    /** Also its serializer's key. */
    inspectorPanel: 'boundedEvidence.inspector',
    container: 'boundedEvidence',
    runs: 'boundedEvidence.runs',
    savings: 'boundedEvidence.savings',
  },
  walkthrough: 'boundedEvidence.start',
  documentScheme: 'bounded-evidence',
  /** The editor's own line numbers off, output numbers drawn (documents/outputGutter.ts). */
  outputLanguage: 'bounded-evidence-output',
  /** Exactly a window's bytes, nothing added. */
  windowScheme: 'bounded-evidence-window',
} as const;

export interface InspectorTarget {
  runId?: string;
  handle?: string;
  /** Lines 0-based `offset`, `count`; or bytes `[start, end)`. */
  window?: ExcerptRangeDto;
}

export interface ArtifactPosition {
  handle: string;
  line?: number;
  byteOffset?: number;
}
