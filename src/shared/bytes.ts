/** Byte counts as people read them, the same in the page, the editor and the command line. */

const units = ['KiB', 'MiB', 'GiB', 'TiB'];

/** Exact byte count with thousands separators: `5,242,880 bytes`, `1 byte`. */
export function exactBytes(n: number): string {
  return `${n.toLocaleString('en-US')} ${n === 1 ? 'byte' : 'bytes'}`;
}

/**
 * Human size in binary units, one decimal under 10: `5.0 MiB`, `200 MiB`, `812 bytes`;
 * `short` writes `812 B` under 1 KiB, for the command line's table columns.
 */
export function formatBytes(n: number, style: 'words' | 'short' = 'words'): string {
  if (n < 1024) return style === 'short' ? `${n} B` : exactBytes(n);
  let v = n / 1024;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `${v < 10 ? v.toFixed(1) : Math.round(v).toString()} ${units[u]}`;
}

/**
 * The exact count with the human size beside it where they differ: `3,162,168 bytes (3.0 MiB)`, but `46 bytes`
 * (never `46 bytes (46 bytes)`).
 */
export function exactAndHuman(n: number): string {
  return n < 1024 ? exactBytes(n) : `${exactBytes(n)} (${formatBytes(n)})`;
}
