/**
 * The one table of evidence tools (docs/architecture.md §2.1): everything a front end offers derives from it, and a
 * name without an entry fails to compile. Adding a tool: CONTRIBUTING.md.
 */
import type { EvidenceToolNames } from './inputs.js';
import { invokeToolTool, type InvokeToolInput } from './invokeTool.js';
import { readFileTool, type ReadFileInput } from './readFile.js';
import { readToolOutputTool, type ReadToolOutputInput } from './readToolOutput.js';
import { runCommandTool, type RunCommandInput } from './runCommand.js';
import { searchTool, type SearchInput } from './search.js';
import type { EvidenceToolDef, ToolSurfaces } from './toolDef.js';

export interface EvidenceToolInputs {
  [EvidenceToolNames.runCommand]: RunCommandInput;
  [EvidenceToolNames.readFile]: ReadFileInput;
  [EvidenceToolNames.readToolOutput]: ReadToolOutputInput;
  [EvidenceToolNames.invokeTool]: InvokeToolInput;
  [EvidenceToolNames.search]: SearchInput;
}

export type EvidenceToolName = keyof EvidenceToolInputs;

/** In the order front ends list the tools. */
export const EvidenceToolTable: { readonly [N in EvidenceToolName]: EvidenceToolDef<N, EvidenceToolInputs[N]> } = {
  evidence_runCommand: runCommandTool,
  evidence_readFile: readFileTool,
  read_tool_output: readToolOutputTool,
  evidence_invokeTool: invokeToolTool,
  evidence_search: searchTool,
};

export type AnyEvidenceTool = (typeof EvidenceToolTable)[EvidenceToolName];

export function isEvidenceToolName(name: string): name is EvidenceToolName {
  return Object.prototype.hasOwnProperty.call(EvidenceToolTable, name);
}

export function toolsOffered(surface: keyof ToolSurfaces): AnyEvidenceTool[] {
  return Object.values(EvidenceToolTable).filter((t) => t.surfaces[surface]);
}

export function toolNamesOffered(surface: keyof ToolSurfaces): EvidenceToolName[] {
  return toolsOffered(surface).map((t) => t.name);
}
