/**
 * Opening workbenches for end-to-end suites, tracked so that a failing test can be
 * photographed by the root hook and every server is ended even when a suite throws.
 */
import { Workbench, type WorkbenchOptions } from '../harness/workbench.js';

const open = new Set<Workbench>();

/** Workbenches currently open. */
export function openWorkbenches(): Workbench[] {
  return [...open];
}

/** Opens a workbench with the extension loaded; close it with `closeWorkbench`. */
export async function openWorkbench(opts: WorkbenchOptions): Promise<Workbench> {
  const wb = await Workbench.open(opts);
  open.add(wb);
  return wb;
}

/** Closes a workbench and ends its server. */
export async function closeWorkbench(wb: Workbench | undefined): Promise<void> {
  if (!wb) return;
  open.delete(wb);
  await wb.close();
}
