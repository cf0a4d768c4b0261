/**
 * Which run a tool call is recorded in. The @evidence participant makes each chat
 * request one run, but it invokes the tools through `vscode.lm.invokeTool` (so the chat
 * shows their progress and confirmations), and the token that reaches the tool is
 * opaque. So the participant announces each call it is about to make (tool name and
 * exact input) and the tool claims the announcement; any other caller (Copilot agent
 * mode, another extension, a test) gets a run of its own per call.
 */
import { canonicalJson, type Run } from '../core/index.js';

/** Announced calls waiting to be claimed by a tool. */
export class RunRouter {
  private readonly pending = new Map<string, Run[]>();

  private static key(tool: string, input: unknown): string {
    return `${tool}\u0000${canonicalJson(input ?? null)}`;
  }

  /** The next call of `tool` with exactly `input` belongs to `run`; dispose to withdraw. */
  expect(tool: string, input: unknown, run: Run): { dispose(): void } {
    const key = RunRouter.key(tool, input);
    const list = this.pending.get(key) ?? [];
    list.push(run);
    this.pending.set(key, list);
    return {
      dispose: () => {
        const l = this.pending.get(key);
        const i = l?.indexOf(run) ?? -1;
        if (l && i >= 0) l.splice(i, 1);
        if (l?.length === 0) this.pending.delete(key);
      },
    };
  }

  /** The run announced for this call, if any (each announcement is claimed once). */
  claim(tool: string, input: unknown): Run | undefined {
    const key = RunRouter.key(tool, input);
    const list = this.pending.get(key);
    const run = list?.shift();
    if (list?.length === 0) this.pending.delete(key);
    return run;
  }
}
