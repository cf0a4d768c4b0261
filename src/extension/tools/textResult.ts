/**
 * Some hosts write a larger text part to disk and hide it behind another pointer, defeating the bounded observation.
 */
import * as vscode from 'vscode';
import { boundModelText } from '../../core/index.js';

export function textResult(text: string): vscode.LanguageModelToolResult {
  return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(boundModelText(text))]);
}
