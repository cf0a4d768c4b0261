/**
 * What the list's widgets share: the rows drawn from the model, the active row, the
 * selected part and the collapsed runs. One object, owned by the calls view and handed
 * to each widget.
 */
import type { RowSource } from '../callsModel.js';

/** Pixel height of one row (matches `.vlist-row` in inspector.css). */
export const rowHeight = 24;

/** The list's shared state. */
export interface ListState {
  /** The rows of the pages held (and a placeholder for each call not held). */
  rows: RowSource;
  /** The row the keyboard is on (-1: none). */
  active: number;
  /** The selected part's key (callsModel's `partKey`). */
  selectedKey: string | undefined;
  /** Run ids whose calls are hidden. */
  readonly collapsed: Set<string>;
  /** First and last row indexes the list has drawn. */
  drawn: [number, number];
}
