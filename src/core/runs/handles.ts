/**
 * Handles (docs/contracts.md §2.2): opaque strings minted by a run — `res_<callId>` for a result,
 * `out_<callId>_<slot>` for an attachment — and resolved only by looking them up among
 * the handles this store's own run records minted. A handle is never parsed, split or
 * turned into a storage address: what the model sends is only ever a Map key.
 *
 * Every refusal (never minted, minted by another run outside the scope or by another
 * tenant, empty, path-like, 10 KB long, minted twice) is the same sentence,
 * `access denied: unknown handle`, which names nothing else.
 */
import { EvidenceError } from '../errors.js';
import type { AttachmentRecord, CallFinishedRecord, Disposable, ReadScope } from './types.js';

/** The reserved reader tool's name: no other tool may take it. */
export const READ_TOOL_OUTPUT = 'read_tool_output';

/** Tool names nothing else may register. */
export const RESERVED_TOOL_NAMES: ReadonlySet<string> = new Set([READ_TOOL_OUTPUT]);

/** The one refusal sentence for every handle that does not resolve. */
export const ACCESS_DENIED_MESSAGE = 'access denied: unknown handle';

/** A fresh access-denied error (same message whatever the cause). */
export function accessDenied(): EvidenceError {
  return new EvidenceError('accessDenied', ACCESS_DENIED_MESSAGE);
}

/** Throws when `name` is reserved (`read_tool_output`) or not a non-empty string. */
export function assertToolNameAllowed(name: string): void {
  if (typeof name !== 'string' || name.length === 0) throw new EvidenceError('invalidArgument', 'tool name must be a non-empty string');
  if (RESERVED_TOOL_NAMES.has(name)) throw new EvidenceError('invalidArgument', `tool name ${name} is reserved`);
}

/**
 * The tools an agent profile offers. Registering a reserved name, or a name twice,
 * throws; the reader itself is registered with `registerReader()`.
 */
export class ToolRegistry {
  private readonly names = new Set<string>();

  /** Registers one tool name; dispose to remove it. */
  register(name: string): Disposable {
    assertToolNameAllowed(name);
    return this.add(name);
  }

  /** Registers `read_tool_output` itself (the only way to take that name). */
  registerReader(): Disposable {
    return this.add(READ_TOOL_OUTPUT);
  }

  /** True when `name` is registered. */
  has(name: string): boolean {
    return this.names.has(name);
  }

  /** Registered names, sorted. */
  list(): string[] {
    return [...this.names].sort();
  }

  private add(name: string): Disposable {
    if (this.names.has(name)) throw new EvidenceError('invalidArgument', `tool name ${name} is already registered`);
    this.names.add(name);
    return { dispose: () => { this.names.delete(name); } };
  }
}

/** The handle of a call's result. */
export function resultHandleOf(callId: string): string {
  return `res_${callId}`;
}

/** The handle of one attachment of a call. */
export function attachmentHandleOf(callId: string, slot: string): string {
  return `out_${callId}_${slot}`;
}

/** What a handle stands for: a call's result, or one of its attachments. */
export interface HandleEntry {
  readonly runId: string;
  readonly record: CallFinishedRecord;
  /** Undefined for the result handle. */
  readonly attachment?: AttachmentRecord;
}

/**
 * The handles this store's records minted, by run. A handle claimed by two records
 * (a tampered log, a call id collision) resolves to nothing rather than to either.
 */
export class HandleIndex {
  private readonly claims = new Map<string, HandleEntry[]>();
  private readonly byRun = new Map<string, Set<string>>();

  /** Replaces everything known about one run with its current finished calls. */
  setRun(runId: string, calls: readonly CallFinishedRecord[]): void {
    this.removeRun(runId);
    for (const record of calls) this.addCall(runId, record);
  }

  /** Adds the handles one finished call minted. */
  addCall(runId: string, record: CallFinishedRecord): void {
    let minted = this.byRun.get(runId);
    if (!minted) { minted = new Set(); this.byRun.set(runId, minted); }
    const add = (handle: string, attachment?: AttachmentRecord): void => {
      const list = this.claims.get(handle) ?? [];
      list.push({ runId, record, attachment });
      this.claims.set(handle, list);
      minted.add(handle);
    };
    if (record.resultHandle) add(record.resultHandle);
    for (const a of record.attachments) add(a.handle, a);
  }

  /** Forgets a run's handles. */
  removeRun(runId: string): void {
    for (const h of this.byRun.get(runId) ?? []) {
      const rest = (this.claims.get(h) ?? []).filter((e) => e.runId !== runId);
      if (rest.length) this.claims.set(h, rest); else this.claims.delete(h);
    }
    this.byRun.delete(runId);
  }

  /** The entry for a handle within `scope`, or undefined (the caller answers access denied). */
  lookup(handle: string, scope?: ReadScope): HandleEntry | undefined {
    const list = this.claims.get(handle);
    if (!list || list.length !== 1) return undefined;
    const e = list[0]!;
    if (scope?.runIds && !scope.runIds.includes(e.runId)) return undefined;
    return e;
  }
}
