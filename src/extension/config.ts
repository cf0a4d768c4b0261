/**
 * The settings, live, in one place: read fresh on every access (clamped by
 * `readSettings`), with an event for any change under `boundedEvidence` so that the
 * services are rebuilt without a reload.
 */
import * as vscode from 'vscode';
import { Ids } from './ids.js';
import { readSettings, type EvidenceSettings } from './settings.js';

/** The settings, live: read on access, and an event when any of them changes. */
export class Config implements vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<void>();
  private readonly listener: vscode.Disposable;
  /** Fires after any `boundedEvidence.*` setting changed. */
  readonly onDidChange = this.emitter.event;

  constructor() {
    this.listener = vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration(Ids.configSection)) this.emitter.fire();
    });
  }

  /** The current values. */
  get settings(): EvidenceSettings {
    return readSettings(vscode.workspace.getConfiguration(Ids.configSection));
  }

  /** Stops listening. */
  dispose(): void {
    this.listener.dispose();
    this.emitter.dispose();
  }
}
