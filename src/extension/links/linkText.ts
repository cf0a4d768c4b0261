/**
 * The text of a link into the evidence, read back (docs/contracts.md §3.4, "Links"). Nothing read here is ever a
 * storage address: the result is looked up in the run store like any handle. No `vscode`: unit tests import it.
 */
import { parseRangePath } from '../../core/index.js';
import { Ids } from '../ids.js';
import type { LinkWindow } from '../documents/outputWindow.js';

export const OPEN_PATH = '/open';

export interface EvidenceLinkArgs {
  readonly handle?: string;
  readonly artifactId?: string;
  readonly window?: LinkWindow;
}

export const HANDLE = /^(?:res|out)_[A-Za-z0-9._-]{1,250}$/;
export const POSITIVE = /^[1-9]\d{0,14}$/;
const NATURAL = /^(?:0|[1-9]\d{0,14})$/;

/** Throws a sentence naming what is wrong. */
export function parseEvidenceLink(params: Record<string, unknown>): EvidenceLinkArgs {
  const str = (k: string): string | undefined => {
    const v = params[k];
    if (v === undefined) return undefined;
    if (typeof v === 'number' && Number.isSafeInteger(v)) return String(v);
    if (typeof v !== 'string') throw new Error(`"${k}" must be a string`);
    return v;
  };
  const handle = str('handle');
  const artifactPath = str('path');
  if ((handle === undefined) === (artifactPath === undefined))
    throw new Error('a link names exactly one handle or one .tool-artifacts path');
  let artifactId: string | undefined;
  let window: LinkWindow | undefined;
  if (handle !== undefined && !HANDLE.test(handle))
    throw new Error('the handle is malformed (expected res_… or out_…)');
  if (artifactPath !== undefined) {
    const range = parseRangePath(artifactPath);
    if (!range || range.end <= range.start)
      throw new Error('the path is not a .tool-artifacts/<artifact_id>/bytes/<start>-<end> range');
    artifactId = range.artifactId;
    window = { start: range.start, end: range.end };
  }
  const line = str('line');
  const bytes = str('bytes');
  if (line !== undefined && bytes !== undefined) throw new Error('give a line or a byte range, not both');
  if (window && (line !== undefined || bytes !== undefined))
    throw new Error('a .tool-artifacts path already names its byte range');
  if (line !== undefined) {
    const m = /^(\d+)(?:-(\d+))?$/.exec(line);
    if (!m || !POSITIVE.test(m[1]!) || (m[2] !== undefined && (!POSITIVE.test(m[2]) || Number(m[2]) < Number(m[1]))))
      throw new Error('"line" must be a line number N or a range N-M (1-based)');
    window = { line: Number(m[1]), ...(m[2] !== undefined ? { endLine: Number(m[2]) } : {}) };
  }
  if (bytes !== undefined) {
    const m = /^(\d+)-(\d+)$/.exec(bytes);
    if (!m || !NATURAL.test(m[1]!) || !NATURAL.test(m[2]!) || Number(m[2]) <= Number(m[1]))
      throw new Error('"bytes" must be a range START-END with START < END');
    window = { start: Number(m[1]), end: Number(m[2]) };
  }
  return {
    ...(handle !== undefined ? { handle } : {}),
    ...(artifactId !== undefined ? { artifactId } : {}),
    ...(window ? { window } : {}),
  };
}

/** Already percent-decoded. */
export interface LinkParts {
  readonly scheme: string;
  readonly authority: string;
  readonly path: string;
  readonly query: string;
}

/** VS Code, Insiders, an OSS build, VSCodium; the running editor's own is accepted too. */
const EDITOR_SCHEMES = ['vscode', 'vscode-insiders', 'code-oss', 'vscodium'];

/** Our own route only, each known parameter at most once. */
export function linkParams(parts: LinkParts, ownScheme?: string): Record<string, string> {
  const scheme = parts.scheme.toLowerCase();
  if (!EDITOR_SCHEMES.includes(scheme) && scheme !== ownScheme?.toLowerCase())
    throw new Error(`"${parts.scheme}:" is not an editor's link scheme (${EDITOR_SCHEMES.join(', ')})`);
  if (parts.authority.toLowerCase() !== Ids.extension || parts.path !== OPEN_PATH)
    throw new Error(`only ${Ids.extension}${OPEN_PATH}?handle=… links are handled`);
  const params: Record<string, string> = {};
  for (const [k, v] of new URLSearchParams(parts.query)) {
    if (!['handle', 'path', 'line', 'bytes'].includes(k)) throw new Error(`unknown parameter "${k}"`);
    if (k in params) throw new Error(`"${k}" is repeated`);
    params[k] = v;
  }
  return params;
}

const CALLBACK_KEYS = [
  'vscode-reqid',
  'vscode-scheme',
  'vscode-authority',
  'vscode-path',
  'vscode-query',
  'vscode-fragment',
];

/**
 * Read as the workbench's own callback page reads it. The host is neither contacted nor trusted: what opens is what
 * the link inside names.
 */
export function callbackLinkParts(text: string): LinkParts {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new Error('the link is not a well-formed address');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new Error('a callback address starts with http:// or https://');
  if (url.username || url.password) throw new Error('a callback address carries no user name or password');
  if (!/(^|\/)callback$/.test(url.pathname))
    throw new Error("an http(s) link must be the workbench's /callback?vscode-… address an excerpt gives");
  if (url.hash) throw new Error('a callback address has no #fragment');
  const got = new Map<string, string>();
  for (const [k, v] of url.searchParams) {
    if (!CALLBACK_KEYS.includes(k)) throw new Error(`the callback address has an unknown parameter "${k}"`);
    if (got.has(k)) throw new Error(`"${k}" is repeated`);
    let value: string;
    try {
      value = decodeURIComponent(v);
    } catch {
      throw new Error(`"${k}" is not well-formed percent-encoding`);
    }
    got.set(k, value);
  }
  const reqid = got.get('vscode-reqid');
  if (reqid !== undefined && !/^\d{1,15}$/.test(reqid)) throw new Error('"vscode-reqid" must be a number');
  if (got.has('vscode-fragment')) throw new Error('an evidence link has no fragment');
  const scheme = got.get('vscode-scheme');
  const authority = got.get('vscode-authority');
  if (!scheme || !authority) throw new Error('the callback address names no vscode-scheme and vscode-authority');
  return { scheme, authority, path: got.get('vscode-path') ?? '', query: got.get('vscode-query') ?? '' };
}

function directLinkParts(text: string): LinkParts {
  const m = /^([a-z][a-z0-9+.-]*):\/\/([^/?#]*)([^?#]*)(?:\?([^#]*))?(#.*)?$/i.exec(text);
  if (!m) throw new Error('the link is not a well-formed address');
  if (m[5] !== undefined) throw new Error('an evidence link has no #fragment');
  const decode = (s: string): string => {
    try {
      return decodeURIComponent(s);
    } catch {
      throw new Error('the link is not well-formed percent-encoding');
    }
  };
  return { scheme: m[1]!, authority: decode(m[2]!), path: decode(m[3]!), query: decode(m[4] ?? '') };
}

export function linkTextParams(text: string, ownScheme?: string): Record<string, string> {
  const t = text.trim();
  return linkParams(/^https?:\/\//i.test(t) ? callbackLinkParts(t) : directLinkParts(t), ownScheme);
}

export function pastedLinkParams(text: string, ownScheme?: string): Record<string, unknown> {
  // The excerpt's line as copied whole, or just its <…>.
  const t = text
    .trim()
    .replace(/^-?\s*open:\s*/i, '')
    .replace(/^<(.*)>$/s, '$1')
    .trim();
  if (/^[a-z][a-z0-9+.-]*:/i.test(t) && t.includes('://')) return linkTextParams(t, ownScheme);
  if (t.startsWith('.tool-artifacts/')) return { path: t };
  const m = /^([^\s:]+)(?::(\d+(?:-\d+)?))?$/.exec(t.replace(/–/g, '-'));
  if (!m)
    throw new Error(
      'paste a link (…/open?handle=… or …/callback?vscode-…), a handle with an ' +
        'optional :LINE or :FIRST-LAST, or a .tool-artifacts path',
    );
  return { handle: m[1], ...(m[2] !== undefined ? { line: m[2] } : {}) };
}
