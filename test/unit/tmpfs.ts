/** A small tmpfs for the full-disk tests (mounting needs root: CI runs as root; the precondition is asserted, never skipped). */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import * as path from 'node:path';

/** Mounts a tmpfs of `mb` MiB at `dir`; returns the unmount. Asserts the precondition (root). */
export function mountTmpfs(dir: string, mb: number): () => void {
  assert.equal(process.getuid?.(), 0, 'this test mounts a small tmpfs and must run as root (CI does)');
  mkdirSync(dir, { recursive: true });
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${mb}m`, 'tmpfs', dir]);
  return () => execFileSync('umount', ['-l', dir]);
}

/** Fills the filesystem of `dir` with one file until it is full; returns the file. */
export function fillDisk(dir: string): string {
  const filler = path.join(dir, 'filler');
  try {
    execFileSync('dd', ['if=/dev/zero', `of=${filler}`, 'bs=64k'], { stdio: 'ignore' });
  } catch {
    /* dd stops at ENOSPC, as intended */
  }
  return filler;
}
