/**
 * The shape every tool workspace has (the local folder, the bounded evidence wrapper,
 * the editor's tool bridge): one `execute` that answers an action with text. Tool
 * failures are ordinary results that start with `error: ` (short, naming no host path),
 * so a model can read them and act; exceptions are for broken configuration only.
 */

/** The tool names the local workspace offers, declared once. */
export const ToolName = {
  readFile: 'read_file',
  listFiles: 'list_files',
  writeFile: 'write_file',
  runCommand: 'run_command',
} as const;

/** One tool call: a tool name and its arguments (flat, as the model sent them). */
export interface ToolAction {
  /** The tool's name, e.g. `read_file`. */
  readonly tool: string;
  /** The tool's arguments by name. */
  readonly arguments: Record<string, unknown>;
}

/** A tool as a model is told about it. */
export interface ToolSpec {
  /** The name the model sends as `tool`. */
  readonly name: string;
  /** One sentence on what the tool does. */
  readonly description: string;
  /** Argument name to a short description (type, optional or not). */
  readonly parameters: Readonly<Record<string, string>>;
}

/**
 * What a workspace lets an agent do. It carries no host path, since a caller may show
 * it to a model (a system prompt, a tool description).
 */
export interface ToolPolicy {
  /** Whether `write_file` is offered. */
  readonly allowWrites: boolean;
  /** Programs `run_command` may start (exact names; empty: no `run_command`). */
  readonly allowedCommands: readonly string[];
  /** Largest file `read_file` returns or `write_file` writes, in bytes, when bounded. */
  readonly maxFileBytes?: number;
  /** Wall-clock limit of one command, in milliseconds, when commands are offered. */
  readonly commandTimeoutMs?: number;
}

/** A set of tools over some resource, as an agent loop drives it. */
export interface ToolWorkspace {
  /** What this workspace allows (for prompts and the editor's confirmations). */
  readonly policy: ToolPolicy;
  /** The tools `execute` accepts. */
  readonly availableTools: readonly ToolSpec[];
  /**
   * Workspace-relative paths this workspace's own tools wrote, sorted, each once. Files a
   * command changes on its own are not tracked.
   */
  readonly modifiedFiles: readonly string[];
  /** Runs one action; tool failures come back as `error: …` text, not exceptions. */
  execute(action: ToolAction, toolCallId?: string): Promise<string>;
}
