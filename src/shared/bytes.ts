/** The same in the page, the editor and the command line. */

const units = ['KiB', 'MiB', 'GiB', 'TiB'];

export function exactBytes(n: number): string {
  return `${n.toLocaleString('en-US')} ${n === 1 ? 'byte' : 'bytes'}`;
}

/** `short` writes `812 B` under 1 KiB, for table columns. */
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

export function exactAndHuman(n: number): string {
  return n < 1024 ? exactBytes(n) : `${exactBytes(n)} (${formatBytes(n)})`;
}
