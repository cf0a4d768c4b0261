/**
 * The extension's one log. Shipped code never writes to the console; callers log decisions and failures, never stored
 * bytes or credentials.
 */
import * as vscode from 'vscode';

export class Log implements vscode.Disposable {
  private constructor(readonly channel: vscode.LogOutputChannel) {}

  static create(name = 'Bounded Evidence'): Log {
    return new Log(vscode.window.createOutputChannel(name, { log: true }));
  }

  info(message: string): void {
    this.channel.info(message);
  }
  debug(message: string): void {
    this.channel.debug(message);
  }
  warn(message: string): void {
    this.channel.warn(message);
  }
  /** Reduced to its message: stacks can carry host paths into shared logs. */
  error(message: string, error?: unknown): void {
    this.channel.error(error === undefined ? message : `${message}: ${errorMessage(error)}`);
  }

  dispose(): void {
    this.channel.dispose();
  }
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
