/**
 * The editor contract's one rule for tool results: every model-facing result is one
 * `LanguageModelTextPart` whose UTF-8 encoding stays under 8 KiB (some hosts write a
 * larger text part to disk on their own and hide it behind another pointer, which would
 * defeat the bounded observation). Tools build their text, then pass it through here.
 */
import * as vscode from 'vscode';
import { floorCodePointBoundary } from '../../core/index.js';
import { MODEL_TEXT_LIMIT_BYTES } from '../config.js';

/** Appended when a text had to be cut to fit (never expected with the default settings). */
export const CUT_MARKER = '\n…[cut to stay under 8 KiB; read the rest by handle]';

/** UTF-8 byte length of a string. */
export function utf8Bytes(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

/** True when `text` fits the model-facing limit (strictly under 8 KiB). */
export function fitsModel(text: string): boolean {
  return utf8Bytes(text) < MODEL_TEXT_LIMIT_BYTES;
}

/**
 * `text` unchanged when it fits; otherwise its longest prefix (cut between code points)
 * that fits together with `CUT_MARKER`. A last resort: each tool sizes its text to fit.
 */
export function boundModelText(text: string): string {
  if (fitsModel(text)) return text;
  const bytes = Buffer.from(text, 'utf8');
  const room = MODEL_TEXT_LIMIT_BYTES - 1 - utf8Bytes(CUT_MARKER);
  const end = floorCodePointBoundary(bytes, room);
  return bytes.subarray(0, end).toString('utf8') + CUT_MARKER;
}

/** One bounded text part. */
export function textResult(text: string): vscode.LanguageModelToolResult {
  return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(boundModelText(text))]);
}

/** A short, actionable error for the model (`error: …`), bounded like any result. */
export function errorResult(sentence: string): vscode.LanguageModelToolResult {
  return textResult(`error: ${sentence}`);
}
