/**
 * Tool failures are ordinary results starting `error: `, so a model can read them and act; exceptions are for broken
 * configuration only.
 */

export const ToolName = {
  readFile: 'read_file',
  listFiles: 'list_files',
  writeFile: 'write_file',
  runCommand: 'run_command',
} as const;

/** Flat, as the model sent them. */
export interface ToolAction {
  readonly tool: string;
  readonly arguments: Record<string, unknown>;
}

export interface ToolSpec {
  readonly name: string;
  readonly description: string;
  readonly parameters: Readonly<Record<string, string>>;
}

/** No host path: a caller may show it to a model. */
export interface ToolPolicy {
  readonly allowWrites: boolean;
  /** Empty: no `run_command`. */
  readonly allowedCommands: readonly string[];
  readonly maxFileBytes?: number;
  readonly commandTimeoutMs?: number;
}

export interface ToolWorkspace {
  readonly policy: ToolPolicy;
  readonly availableTools: readonly ToolSpec[];
  /** Files a command changes on its own are not tracked. */
  readonly modifiedFiles: readonly string[];
  execute(action: ToolAction, toolCallId?: string): Promise<string>;
}
