/** Pure: unit-tested in Node. */

export { exactAndHuman, exactBytes, formatBytes as humanBytes } from '../src/shared/bytes.js';

export function shortSha(sha: string | undefined): string {
  return sha ? sha.slice(0, 12) : '';
}

const pad = (n: number): string => String(n).padStart(2, '0');

/** Empty when unparsable. */
export function localTime(iso: string | undefined): string {
  if (!iso) return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  return (
    `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ` +
    `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`
  );
}

/** The date is in the row's title and the run header. */
export function clockTime(iso: string | undefined): string {
  return localTime(iso).slice(11);
}

export function count(n: number): string {
  return n.toLocaleString('en-US');
}
