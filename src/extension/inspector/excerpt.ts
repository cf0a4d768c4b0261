/**
 * Text the inspector builds from verified bytes: hex dumps of binary windows and the
 * Markdown excerpt (fenced text + provenance) that "Copy excerpt" and "Send to chat"
 * produce. Pure functions, no `vscode`.
 */
import { createHash } from 'node:crypto';
import { Ids } from '../ids.js';
import { OPEN_PATH } from '../links/linkText.js';

/**
 * The hex dump of binary windows is the reader's (`hexdump -C` rows: offset, sixteen bytes in
 * two groups, printable ASCII between bars), so the model, the panel, the editor pages and an
 * excerpt show the same bytes the same way.
 */
export { hexDump } from '../../core/index.js';

/** A backtick fence longer than any run of backticks inside `text` (at least three). */
export function fenceFor(text: string): string {
  let longest = 0;
  for (const m of text.matchAll(/`+/g)) longest = Math.max(longest, m[0].length);
  return '`'.repeat(Math.max(3, longest + 1));
}

/** Inline code that survives backticks in its content (CommonMark: a longer backtick string, padded). */
function inlineCode(text: string): string {
  let longest = 0;
  for (const m of text.matchAll(/`+/g)) longest = Math.max(longest, m[0].length);
  const tick = '`'.repeat(longest + 1);
  return longest > 0 ? `${tick} ${text} ${tick}` : `${tick}${text}${tick}`;
}

/** Everything an excerpt says about where its text came from. */
export interface ExcerptSource {
  readonly handle: string;
  /** Byte range `[start, end)` of the excerpt. */
  readonly start: number;
  readonly end: number;
  /** Size and sha256 of the whole artifact. */
  readonly totalBytes: number;
  readonly sha256: string;
  /** The excerpt's bytes (for its own digest). */
  readonly bytes: Uint8Array;
  /** The bytes decoded strictly, or a hex dump for binary content. */
  readonly text: string;
  readonly encoding: 'text' | 'hex';
  /** 0-based first line and number of lines, when known. */
  readonly firstLine?: number;
  readonly lineSpan?: number;
  /** URI scheme of the editor that opens the excerpt's link (`vscode.env.uriScheme`); default `vscode`. */
  readonly uriScheme?: string;
  /** The team store the bytes were read from (docs/contracts.md §7.2); absent for this storage's. */
  readonly store?: string;
  /**
   * The `open:` link as given, instead of `excerptLink`: in a browser-hosted editor,
   * `vscode.env.asExternalUri` of it (the workbench's own callback URL, which a browser
   * opens and hands to the window that minted it, once; a `code-oss://` link is not even
   * underlined there).
   */
  readonly link?: string;
}

/**
 * A link that opens the inspector on `handle` at bytes `[start, end)` (the URI handler of
 * src/extension/links/evidenceLinks.ts).
 */
export function excerptLink(handle: string, start: number, end: number, scheme = 'vscode'): string {
  return (
    `${scheme}://${Ids.extension}${OPEN_PATH}?` + new URLSearchParams({ handle, bytes: `${start}-${end}` }).toString()
  );
}

/**
 * Markdown for an excerpt: a fenced block with the exact text, then the provenance
 * (handle, byte range, sizes, sha256 of the artifact and of the excerpt, and a link that
 * opens the inspector at that window) so anyone can read the same range back and check it.
 */
export function buildExcerpt(src: ExcerptSource): string {
  const fence = fenceFor(src.text);
  const body = src.text.endsWith('\n') || src.text.length === 0 ? src.text : `${src.text}\n`;
  const lines =
    src.firstLine !== undefined && src.lineSpan !== undefined && src.lineSpan > 0
      ? src.lineSpan === 1
        ? `, line ${src.firstLine + 1}`
        : `, lines ${src.firstLine + 1}–${src.firstLine + src.lineSpan}`
      : '';
  const excerptSha = createHash('sha256').update(src.bytes).digest('hex');
  return [
    `${fence}${src.encoding === 'hex' ? 'hexdump' : 'text'}`,
    `${body}${fence}`,
    '',
    `Evidence excerpt (${src.encoding === 'hex' ? 'binary, shown as hex' : 'exact text'}):`,
    `- handle: ${inlineCode(src.handle)}`,
    ...(src.store !== undefined ? [`- team store: ${inlineCode(src.store)} (a published run, read-only)`] : []),
    `- range: bytes [${src.start}, ${src.end})${lines}`,
    `- excerpt: ${src.end - src.start} bytes, sha256 ${excerptSha}`,
    `- artifact: ${src.totalBytes} bytes, sha256 ${src.sha256}`,
    `- open: <${src.link ?? excerptLink(src.handle, src.start, src.end, src.uriScheme)}>`,
    '',
  ].join('\n');
}
