/**
 * Shared helpers of the integration suite (runs inside the real extension host): the
 * extension's API, the demo build-log script, and a reference run of a command in
 * plain Node to compare the recorded bytes against.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { FsBlobStore, layoutOfFolder, RunStore, type RunSummary } from '../../src/core/index.js';
import type { BoundedEvidenceApi } from '../../src/extension/api/api.js';

/** The extension under test. */
export const EXTENSION_ID = 'bounded-evidence.bounded-evidence';
/** The second (fixture) extension. */
export const CLIENT_ID = 'bounded-evidence-tests.evidence-client';

/** Activates the extension and returns its API. */
export async function evidenceApi(): Promise<BoundedEvidenceApi> {
  const ext = vscode.extensions.getExtension<BoundedEvidenceApi>(EXTENSION_ID);
  if (!ext) throw new Error('extension under test is not loaded');
  return await ext.activate();
}

/** Absolute path of the repository (the extension's folder). */
export function repoRoot(): string {
  const ext = vscode.extensions.getExtension(EXTENSION_ID);
  if (!ext) throw new Error('extension under test is not loaded');
  return ext.extensionPath;
}

/** The workspace folder's path. */
export function workspaceDir(): string {
  const f = vscode.workspace.workspaceFolders?.[0];
  if (!f) throw new Error('no workspace folder');
  return f.uri.fsPath;
}

/** A shell-quoted argument. */
export function sh(arg: string): string {
  return `'${arg.replace(/'/g, `'\\''`)}'`;
}

/** The command line that prints the demo build log (`lines` lines, one error in the middle). */
export function buildLogCommand(lines: number): string {
  return `${sh(process.execPath)} ${sh(path.join(repoRoot(), 'demo', 'build-log.js'))} ${lines}`;
}

/** What the same command writes when run directly: stdout bytes, their sha256. */
export function reference(
  command: string,
  cwd: string,
): { stdout: Buffer; stderr: Buffer; sha256: string; status: number | null } {
  const r = spawnSync('/bin/sh', ['-c', command], { cwd, maxBuffer: 1 << 30 });
  return {
    stdout: r.stdout,
    stderr: r.stderr,
    sha256: createHash('sha256').update(r.stdout).digest('hex'),
    status: r.status,
  };
}

/** UTF-8 byte length. */
export function bytesOf(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

/** The single text of a tool result (asserts it is exactly one text part). */
export function onlyText(result: vscode.LanguageModelToolResult): string {
  if (result.content.length !== 1) throw new Error(`expected one part, got ${result.content.length}`);
  const part = result.content[0];
  if (!(part instanceof vscode.LanguageModelTextPart)) throw new Error('expected a LanguageModelTextPart');
  return part.value;
}

/** Invokes a tool as an agent would (no chat request: `toolInvocationToken` undefined). */
export async function invoke(name: string, input: object, token?: vscode.CancellationToken): Promise<string> {
  return onlyText(await vscode.lm.invokeTool(name, { input, toolInvocationToken: undefined }, token));
}

/** This workspace's evidence storage and tenant, as Copy MCP Server Configuration states them. */
export async function evidenceStorage(): Promise<{ storage: string; tenant: string }> {
  const config = JSON.parse(await vscode.commands.executeCommand<string>('boundedEvidence.copyMcpConfig')) as {
    mcpServers: Record<string, { args: string[] }>;
  };
  const args = config.mcpServers['bounded-evidence']!.args;
  return { storage: args[args.indexOf('--storage') + 1]!, tenant: args[args.indexOf('--tenant') + 1]! };
}

/** The runs of this workspace's store, listed as the inspector lists them. */
export async function listRuns(storage: string, tenant: string): Promise<RunSummary[]> {
  const layout = layoutOfFolder(storage, false);
  const runs = await RunStore.open({ logsDir: layout.logsDir, tenant, blobs: await FsBlobStore.open(layout.blobsDir) });
  return runs.listRuns();
}
