/**
 * The rule init writes for an agent that no hook can route (Roo Code, Cursor, Cline's VS Code extension;
 * docs/contracts.md §6.2): it asks the model to run long commands through `evidence_runCommand` and read more by
 * handle. Whether it does is the model's.
 */

/** Its heading: ours in any version, wherever a file's front matter puts it. */
export const RULE_MARK = '# Commands that may print much: run them through the bounded-evidence tools';

/** `shellTool`: the agent's own shell tool, or its names across versions; `more`: lines only this agent needs. */
export function evidenceRule(shellTool: string | readonly string[], more: readonly string[] = []): string {
  const shell = (typeof shellTool === 'string' ? [shellTool] : shellTool).map((t) => `\`${t}\``).join(' or ');
  return `${RULE_MARK}

The \`bounded-evidence\` MCP server keeps a command's whole output and answers with a bounded view: the exit code, the
error lines with their line numbers, the start and end of the output, and a handle for the rest.

- Run a command whose output may be long (a build, a test suite, an install, a log, a search over many files) with
  the \`evidence_runCommand\` tool of the \`bounded-evidence\` server, not with ${shell}.
- To see more of that output, call its \`read_tool_output\` tool with the handle (a \`pattern\` for the lines you need,
  or a range of lines) instead of running the command again.
- A command whose output is surely short may still use ${shell}.
${more.map((m) => `- ${m}\n`).join('')}`;
}

export function isOurRule(text: string): boolean {
  return text.split('\n').includes(RULE_MARK);
}
