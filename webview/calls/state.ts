/** One object, owned by the calls view and handed to each widget. */
import type { RowSource } from '../callsModel.js';

/** Matches `.vlist-row` in inspector.css. */
export const rowHeight = 24;

export interface ListState {
  /** A placeholder for each call not held. */
  rows: RowSource;
  /** -1: none. */
  active: number;
  selectedKey: string | undefined;
  readonly collapsed: Set<string>;
  drawn: [number, number];
}
