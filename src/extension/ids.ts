import { EvidenceToolNames } from '../core/index.js';
import type { ExcerptRangeDto } from '../shared/protocol.js';

/** Every id the extension contributes, declared once (must match package.json). */
export const Ids = {
  extension: 'bounded-evidence.bounded-evidence',
  commands: {
    /** Opens (or reveals) the inspector; optional argument `InspectorTarget`. */
    openInspector: 'boundedEvidence.openInspector',
    /** Asks for a shell command, records a run with its attachments, opens the inspector on it. */
    runCommandAndCapture: 'boundedEvidence.runCommandAndCapture',
    /** Imports any file (binary, multi-gigabyte) as evidence. */
    importFile: 'boundedEvidence.importFile',
    /** Full sha256 verification of a handle's bytes; optional argument `{ handle }`. */
    verifyArtifact: 'boundedEvidence.verifyArtifact',
    /** Opens a handle's bytes as a read-only paged document; optional argument `ArtifactPosition`. */
    openArtifact: 'boundedEvidence.openArtifact',
    /** Applies the retention settings now. */
    pruneStorage: 'boundedEvidence.pruneStorage',
    /** Deletes every run and artifact of this workspace, after a modal confirmation. */
    clearAll: 'boundedEvidence.clearAll',
    /** Stores the S3 access key pair in SecretStorage (never in settings). */
    setS3Credentials: 'boundedEvidence.setS3Credentials',
    /**
     * Adds a team store (s3://BUCKET/PREFIX) to the user's settings, its access keys (if any) to SecretStorage;
     * optional argument: the answers (src/extension/team/addTeamEvidence.ts).
     */
    addTeamEvidence: 'boundedEvidence.addTeamEvidence',
    /** Lists the team stores again and mirrors their new runs. */
    refreshTeamEvidence: 'boundedEvidence.refreshTeamEvidence',
    /** Copies an `mcpServers` entry running dist/mcp.js over this workspace's storage, folder and tenant. */
    copyMcpConfig: 'boundedEvidence.copyMcpConfig',
    /** Writes `.github/hooks/bounded-evidence.json` (asks first); optional argument `RoutingArgs`. */
    routeAgentTerminals: 'boundedEvidence.routeAgentTerminals',
    /** Removes only the hooks the route command wrote in this workspace. */
    stopRouting: 'boundedEvidence.stopRouting',
    /** Merges the hook into `~/.copilot/hooks/` and `~/.claude/settings.json` (asks first). */
    routeAgentTerminalsForUser: 'boundedEvidence.routeAgentTerminalsForUser',
    /** Removes only our hooks from the user's files. */
    stopRoutingForUser: 'boundedEvidence.stopRoutingForUser',
    /** `init` from the editor: a quick pick of agents and scopes (src/extension/reach/initAgents.ts). */
    initAgents: 'boundedEvidence.initAgents',
    uninstallAgents: 'boundedEvidence.uninstallAgents',
    /**
     * Opens a link into the evidence (a handle or `.tool-artifacts` range, with a window):
     * the only command our chat answers trust (docs/contracts.md §3.4, "Links"). From the
     * palette ("Open Evidence Link…") it asks for a pasted link.
     */
    openEvidenceLink: 'boundedEvidence.openEvidenceLink',
    /**
     * The diff editor on two chosen windows; optional argument `{ left, right }`
     * (src/extension/documents/compareWindows.ts).
     */
    compareOutputs: 'boundedEvidence.compareOutputs',
    /** Imports a file picked in the Explorer (its context menu). */
    importAsEvidence: 'boundedEvidence.importAsEvidence',
    /** Records the demo's failing test run (the walkthrough's and the empty view's button). */
    captureDemo: 'boundedEvidence.captureDemo',
    /** Saves a whole output to a file (the Runs view's context menu). */
    exportOutput: 'boundedEvidence.exportOutput',
    /** Save Excerpt As…: a window of an output to a file. */
    saveExcerptAs: 'boundedEvidence.saveExcerptAs',
    /** Go to an output line in a `bounded-evidence:` page (the status bar item's command). */
    goToOutputLine: 'boundedEvidence.goToOutputLine',
    /** Toggles output line numbers in a `bounded-evidence:` page. */
    outputLineNumbers: 'boundedEvidence.outputLineNumbers',
    /** The Runs view's own commands (title bar, context menus, a node's click). */
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
  /** Language model tool names (declared in the core: the MCP server serves the same names). */
  tools: EvidenceToolNames,
  /** The @evidence chat participant. */
  participant: {
    id: 'bounded-evidence.agent',
    name: 'evidence',
  },
  /** Configuration section; every key lives under it (see config.ts). */
  configSection: 'boundedEvidence',
  /** SecretStorage key of the S3 credentials (JSON `{ accessKeyId, secretAccessKey }`). */
  s3CredentialsSecret: 'boundedEvidence.s3.credentials',
  views: {
    /** Webview panel type of the inspector (also its serializer's key). */
    inspectorPanel: 'boundedEvidence.inspector',
    /** The activity bar's container, its Runs tree and its Savings webview view. */
    container: 'boundedEvidence',
    runs: 'boundedEvidence.runs',
    savings: 'boundedEvidence.savings',
  },
  /** The walkthrough (`contributes.walkthroughs`). */
  walkthrough: 'boundedEvidence.start',
  /** URI scheme of the read-only artifact documents. */
  documentScheme: 'bounded-evidence',
  /**
   * Language of `bounded-evidence:` pages with known line numbers: the editor's own numbers off, output numbers drawn
   * (src/extension/documents/outputGutter.ts).
   */
  outputLanguage: 'bounded-evidence-output',
  /**
   * URI scheme of the compared windows: exactly a window's bytes, nothing added
   * (src/extension/documents/compareWindows.ts).
   */
  windowScheme: 'bounded-evidence-window',
} as const;

/** Argument of `openInspector`: what to select when the panel opens. */
export interface InspectorTarget {
  runId?: string;
  handle?: string;
  /** With `handle`: the window to show and mark (lines 0-based `offset`, `count`; or bytes `[start, end)`). */
  window?: ExcerptRangeDto;
}

/** Argument of `openArtifact`: a handle and where to reveal it. */
export interface ArtifactPosition {
  handle: string;
  /** 0-based line to reveal. */
  line?: number;
  /** Byte offset to reveal (converted to a position by the document provider). */
  byteOffset?: number;
}
