/** The panel supplies the real ones, unit tests fakes. */
import type { RunStoreApi } from '../../core/index.js';
import type {
  CompareSideDto,
  ExcerptRangeDto,
  HostToWebview,
  InspectorLimitsDto,
  StartActionDto,
  TargetDto,
} from '../../shared/protocol.js';

export interface InspectorLog {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

export interface InspectorActions {
  /** The webview sandbox cannot. */
  writeClipboard(text: string): Promise<void>;
  /** `clipboard` when it fell back (and said so). */
  sendToChat(text: string): Promise<'chat' | 'clipboard'>;
  openArtifact(handle: string, byteOffset: number): Promise<void>;
  /** The reply does not wait for it. */
  startAction(action: StartActionDto): void;
  /** Undefined when nothing was written. */
  saveExcerpt(handle: string, range: ExcerptRangeDto): Promise<string | undefined>;
  personRead(): void;
  /** Checked again there. */
  compareWindows(left: CompareSideDto, right: CompareSideDto, panelWidth?: number): Promise<string>;
}

export interface InspectorControllerOptions {
  /** It may change: call `storeChanged`. */
  store(): RunStoreApi | undefined | Promise<RunStoreApi | undefined>;
  /** A hidden webview drops messages, which is fine: it says `ready` again. */
  post(message: HostToWebview): unknown;
  readonly actions: InspectorActions;
  readonly log: InspectorLog;
  readonly limits?: InspectorLimitsDto;
  readonly target?: TargetDto;
  readonly deltaDelayMs?: number;
  /** Insiders and OSS builds differ. */
  readonly uriScheme?: string;
  /** In a browser workbench, the callback URL that reaches our URI handler. Absent: the `<uriScheme>://` link. */
  readonly externalLink?: (link: string) => Promise<string>;
}
