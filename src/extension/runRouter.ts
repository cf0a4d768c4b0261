/**
 * The @evidence participant makes each chat request one run, but the token that reaches the tool is opaque; so it
 * announces each call (tool and exact input) and the tool claims it. Any other caller gets a run per call.
 */
import { canonicalJson, type Run } from '../core/index.js';

export class RunRouter {
  private readonly pending = new Map<string, Run[]>();

  private static key(tool: string, input: unknown): string {
    return `${tool}\u0000${canonicalJson(input ?? null)}`;
  }

  /** Dispose to withdraw. */
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

  /** Each announcement is claimed once. */
  claim(tool: string, input: unknown): Run | undefined {
    const key = RunRouter.key(tool, input);
    const list = this.pending.get(key);
    const run = list?.shift();
    if (list?.length === 0) this.pending.delete(key);
    return run;
  }
}
