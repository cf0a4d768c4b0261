/**
 * What the extension host was doing while a ping of bench/host.bench.ts waited: reads a
 * phase's `<phase>.json` and `<phase>.cpuprofile` (written with `BENCH_HOST_PROFILE=1
 * BENCH_HOST_KEEP=1`) and, for each ping that fired more than 50 ms late, sums the
 * profile's samples between when it was due and when it fired: the functions on CPU
 * (self time) and this extension's functions on the stack (inclusive).
 * `node --import tsx bench/hostProfile.ts .bench-runs/host-XXXX/out/morning`
 */
import { readFileSync } from 'node:fs';
import type { ProbeResult } from './hostProbe.js';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

const base = process.argv[2]!;
const res = JSON.parse(readFileSync(`${base}.json`, 'utf8')) as ProbeResult;
const prof = JSON.parse(readFileSync(`${base}.cpuprofile`, 'utf8')) as Profile;
const byId = new Map(prof.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of prof.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const name = (n: ProfileNode): string =>
  `${n.callFrame.functionName || '(anonymous)'} ${n.callFrame.url.split('/').slice(-2).join('/')}:${n.callFrame.lineNumber + 1}`;
// Sample times in ms after the probe's start.
const times: number[] = [];
let t = prof.startTime;
for (const d of prof.timeDeltas) {
  t += d;
  times.push((t - prof.startTime) / 1000 + (res.profiledFrom ?? 0));
}
const top = (m: Map<string, number>, n: number): string =>
  [...m]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([k, v]) => `${v.toFixed(0).padStart(5)} ms ${k}`)
    .join('\n    ');
for (const [at, late] of res.slow) {
  if (late <= 50) continue;
  const self = new Map<string, number>();
  const ours = new Map<string, number>();
  for (let i = 1; i < times.length; i++) {
    if (times[i]! < at - late || times[i]! > at) continue;
    const dt = times[i]! - times[i - 1]!;
    const node = byId.get(prof.samples[i]!)!;
    self.set(name(node), (self.get(name(node)) ?? 0) + dt);
    const seen = new Set<string>();
    for (let x: number | undefined = node.id; x !== undefined; x = parent.get(x)) {
      const m = byId.get(x)!;
      if (!/dist\/extension\.js/.test(m.callFrame.url) || seen.has(name(m))) continue;
      seen.add(name(m));
      ours.set(name(m), (ours.get(name(m)) ?? 0) + dt);
    }
  }
  console.log(
    `\nping due at ${((at - late) / 1000).toFixed(2)} s fired ${late} ms late\n  on CPU:\n    ${top(self, 8)}\n  this extension on the stack:\n    ${top(ours, 12) || '(none)'}`,
  );
}
