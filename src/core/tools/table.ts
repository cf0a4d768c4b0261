/**
 * The one table of evidence tools (docs/architecture.md §2.1), keyed by the name the model
 * sees: a name in `EvidenceToolInputs` without an entry here fails to compile. Everything
 * a front end offers is derived from it: the editor's registrations and the participant's
 * tool list (src/extension), the MCP server's list, annotations, schemas and dispatch
 * (src/mcp), and the check that package.json declares the same tools with the same
 * schemas (a unit test). Adding a tool: its logic file (input, schema, validator,
 * `perform`), one line in `EvidenceToolInputs`, `EvidenceToolNames` and the table, a
 * test, and its `languageModelTools` entry in package.json.
 */
import type { EvidenceToolNames } from './inputs.js';
import { invokeToolTool, type InvokeToolInput } from './invokeTool.js';
import { readFileTool, type ReadFileInput } from './readFile.js';
import { readToolOutputTool, type ReadToolOutputInput } from './readToolOutput.js';
import { runCommandTool, type RunCommandInput } from './runCommand.js';
import { searchTool, type SearchInput } from './search.js';
import type { EvidenceToolDef, ToolSurfaces } from './toolDef.js';

/** Every evidence tool's input type, by name. */
export interface EvidenceToolInputs {
  [EvidenceToolNames.runCommand]: RunCommandInput;
  [EvidenceToolNames.readFile]: ReadFileInput;
  [EvidenceToolNames.readToolOutput]: ReadToolOutputInput;
  [EvidenceToolNames.invokeTool]: InvokeToolInput;
  [EvidenceToolNames.search]: SearchInput;
}

/** The name of an evidence tool. */
export type EvidenceToolName = keyof EvidenceToolInputs;

/** The table (in the order front ends list the tools). */
export const EvidenceToolTable: { readonly [N in EvidenceToolName]: EvidenceToolDef<N, EvidenceToolInputs[N]> } = {
  evidence_runCommand: runCommandTool,
  evidence_readFile: readFileTool,
  read_tool_output: readToolOutputTool,
  evidence_invokeTool: invokeToolTool,
  evidence_search: searchTool,
};

/** Any entry of the table. */
export type AnyEvidenceTool = (typeof EvidenceToolTable)[EvidenceToolName];

/** True when `name` is an evidence tool. */
export function isEvidenceToolName(name: string): name is EvidenceToolName {
  return Object.prototype.hasOwnProperty.call(EvidenceToolTable, name);
}

/** The tools a surface offers, in table order. */
export function toolsOffered(surface: keyof ToolSurfaces): AnyEvidenceTool[] {
  return Object.values(EvidenceToolTable).filter((t) => t.surfaces[surface]);
}

/** The names a surface offers, in table order. */
export function toolNamesOffered(surface: keyof ToolSurfaces): EvidenceToolName[] {
  return toolsOffered(surface).map((t) => t.name);
}
