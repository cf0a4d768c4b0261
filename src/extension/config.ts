/** Settings read fresh on every access, with an event for any change, so services rebuild without a reload. */
import * as vscode from 'vscode';
import { Ids } from './ids.js';
import { readSettings, type EvidenceSettings } from './settings.js';

export class Config implements vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<void>();
  private readonly listener: vscode.Disposable;
  readonly onDidChange = this.emitter.event;

  constructor() {
    this.listener = vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration(Ids.configSection)) this.emitter.fire();
    });
  }

  get settings(): EvidenceSettings {
    return readSettings(vscode.workspace.getConfiguration(Ids.configSection));
  }

  dispose(): void {
    this.listener.dispose();
    this.emitter.dispose();
  }
}
