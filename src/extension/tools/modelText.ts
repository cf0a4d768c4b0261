/**
 * The editor contract's one rule for tool results: every model-facing result is one
 * `LanguageModelTextPart` whose UTF-8 encoding stays under 8 KiB (some hosts write a
 * larger text part to disk on their own and hide it behind another pointer, which would
 * defeat the bounded observation). Tools build their text, then pass it through here.
 */
import * as vscode from 'vscode';
import { boundModelText } from '../../core/index.js';

/** One bounded text part. */
export function textResult(text: string): vscode.LanguageModelToolResult {
  return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(boundModelText(text))]);
}
