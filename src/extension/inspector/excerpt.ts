/** Text the inspector builds from verified bytes. Pure, no `vscode`. */
import { createHash } from 'node:crypto';
import { Ids } from '../ids.js';
import { OPEN_PATH } from '../links/linkText.js';

/** The reader's, so the model, the panel, the editor pages and an excerpt show the same bytes the same way. */
export { hexDump } from '../../core/index.js';

export function fenceFor(text: string): string {
  let longest = 0;
  for (const m of text.matchAll(/`+/g)) longest = Math.max(longest, m[0].length);
  return '`'.repeat(Math.max(3, longest + 1));
}

/** CommonMark: a longer backtick string, padded. */
function inlineCode(text: string): string {
  let longest = 0;
  for (const m of text.matchAll(/`+/g)) longest = Math.max(longest, m[0].length);
  const tick = '`'.repeat(longest + 1);
  return longest > 0 ? `${tick} ${text} ${tick}` : `${tick}${text}${tick}`;
}

export interface ExcerptSource {
  readonly handle: string;
  readonly start: number;
  readonly end: number;
  readonly totalBytes: number;
  readonly sha256: string;
  readonly bytes: Uint8Array;
  readonly text: string;
  readonly encoding: 'text' | 'hex';
  readonly firstLine?: number;
  readonly lineSpan?: number;
  readonly uriScheme?: string;
  /** The team store the bytes were read from (docs/contracts.md §7.2); absent for this storage's. */
  readonly store?: string;
  /**
   * In a browser-hosted editor, `vscode.env.asExternalUri` of it: a `code-oss://` link is not even underlined there.
   */
  readonly link?: string;
}

export function excerptLink(handle: string, start: number, end: number, scheme = 'vscode'): string {
  return (
    `${scheme}://${Ids.extension}${OPEN_PATH}?` + new URLSearchParams({ handle, bytes: `${start}-${end}` }).toString()
  );
}

/** The provenance lets anyone read the same range back and check it. */
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
