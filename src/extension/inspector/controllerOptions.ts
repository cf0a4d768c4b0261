/**
 * What an inspector controller is given: the store, the transport to its webview, the
 * editor's actions (clipboard, chat, documents) and its log. The panel (inspectorPanel.ts)
 * supplies the real ones, unit tests fakes.
 */
import type { RunStoreApi } from '../../core/index.js';
import type {
  CompareSideDto,
  ExcerptRangeDto,
  HostToWebview,
  InspectorLimitsDto,
  StartActionDto,
  TargetDto,
} from '../../shared/protocol.js';

/** The log the controller writes to (a `LogOutputChannel` fits). */
export interface InspectorLog {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

/** What the editor does for the panel (clipboard, chat, documents). */
export interface InspectorActions {
  /** Writes the system clipboard (the webview sandbox cannot). */
  writeClipboard(text: string): Promise<void>;
  /** Puts text into the chat input without sending it: `chat`, or `clipboard` when it fell back (and said so). */
  sendToChat(text: string): Promise<'chat' | 'clipboard'>;
  /** Opens the read-only artifact document at a byte offset. */
  openArtifact(handle: string, byteOffset: number): Promise<void>;
  /** Starts one of the empty panel's actions (it runs on; the reply does not wait for it). */
  startAction(action: StartActionDto): void;
  /**
   * Saves a window to a file the person picks (Save Excerpt As…); the sentence saying what was written, or undefined
   * when nothing was.
   */
  saveExcerpt(handle: string, range: ExcerptRangeDto): Promise<string | undefined>;
  /** Opens the diff editor on two windows (checked again there); the sentence saying what opened. */
  compareWindows(left: CompareSideDto, right: CompareSideDto, panelWidth?: number): Promise<string>;
}

/** Options of `InspectorController`. */
export interface InspectorControllerOptions {
  /** The current store (it may change: call `storeChanged`). */
  store(): RunStoreApi | undefined | Promise<RunStoreApi | undefined>;
  /** Posts to the webview; a hidden webview drops messages, which is fine: it says `ready` again. */
  post(message: HostToWebview): unknown;
  readonly actions: InspectorActions;
  readonly log: InspectorLog;
  readonly limits?: InspectorLimitsDto;
  /** What to select on the next `ready`. */
  readonly target?: TargetDto;
  /** Delay that batches live records into one delta (ms). */
  readonly deltaDelayMs?: number;
  /** URI scheme of this editor (`vscode.env.uriScheme`: Insiders and OSS builds differ) for excerpt links. */
  readonly uriScheme?: string;
  /**
   * The link a person can open from where the editor runs (`vscode.env.asExternalUri`: in
   * a browser workbench the callback URL that reaches our URI handler; the same link on
   * the desktop). Absent: the `<uriScheme>://` link as it is.
   */
  readonly externalLink?: (link: string) => Promise<string>;
}
