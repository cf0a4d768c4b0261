/**
 * The environment the product's processes pass each other. No imports, so the hook's small bundle loads it without
 * the stores.
 */
export const ENV = {
  /** Set in every integrated terminal (same tenant as the editor). */
  storage: 'BOUNDED_EVIDENCE_STORAGE',
  cli: 'BOUNDED_EVIDENCE_CLI',
  /** The shell of VS Code's terminals, which the hook writes its routed command for. */
  shell: 'BOUNDED_EVIDENCE_SHELL',
  /** The extension's global storage, where the hook finds workspaces.json. */
  home: 'BOUNDED_EVIDENCE_HOME',
  /** ELECTRON_RUN_AS_NODE as it was before the shim set it, restored for captured commands. */
  electronWas: 'BOUNDED_EVIDENCE_ELECTRON_WAS',
  /** Inherited by every process of a recorded command, so its descendants can be ended. */
  call: 'BOUNDED_EVIDENCE_CALL',
  /** From the user's environment only. */
  teamStores: 'BOUNDED_EVIDENCE_TEAM_STORES',
} as const;
