/**
 * The extension's one log: a `LogOutputChannel` ("Bounded Evidence" in the Output view,
 * level set by the user). Shipped code never writes to the console. Callers log
 * decisions and failures, never stored bytes or credentials.
 */
import * as vscode from 'vscode';

/** A thin wrapper so features depend on four methods, not on the channel. */
export class Log implements vscode.Disposable {
  /** The channel itself, for features that take one (the inspector). */
  private constructor(readonly channel: vscode.LogOutputChannel) {}

  /** Creates the channel. */
  static create(name = 'Bounded Evidence'): Log {
    return new Log(vscode.window.createOutputChannel(name, { log: true }));
  }

  /** Something worth knowing happened. */
  info(message: string): void {
    this.channel.info(message);
  }
  /** Detail for diagnosis. */
  debug(message: string): void {
    this.channel.debug(message);
  }
  /** Something went wrong but the feature carries on. */
  warn(message: string): void {
    this.channel.warn(message);
  }
  /** A failure; `error` is reduced to its message (stacks can carry host paths into shared logs). */
  error(message: string, error?: unknown): void {
    this.channel.error(error === undefined ? message : `${message}: ${errorMessage(error)}`);
  }

  /** Closes the channel. */
  dispose(): void {
    this.channel.dispose();
  }
}

/** The message of anything thrown. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
