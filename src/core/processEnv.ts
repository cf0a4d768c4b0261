/**
 * The environment the product's processes pass each other: the extension sets these in its
 * terminals and the shim, the command line and its hook read them, a recorded command carries
 * one to its descendants. No imports, so the hook's small bundle loads it without the stores.
 */
export const ENV = {
  /** A workspace's storage folder, set in every integrated terminal (same tenant as the editor). */
  storage: 'BOUNDED_EVIDENCE_STORAGE',
  /** The command that runs the command line: the extension's shim. */
  cli: 'BOUNDED_EVIDENCE_CLI',
  /** The shell of VS Code's terminals, which the hook writes its routed command for. */
  shell: 'BOUNDED_EVIDENCE_SHELL',
  /** The extension's global storage, where the hook finds workspaces.json. */
  home: 'BOUNDED_EVIDENCE_HOME',
  /** ELECTRON_RUN_AS_NODE as it was before the shim set it, restored for captured commands. */
  electronWas: 'BOUNDED_EVIDENCE_ELECTRON_WAS',
  /** The marker every process of a recorded command inherits, so its descendants can be ended. */
  call: 'BOUNDED_EVIDENCE_CALL',
  /** The team stores the user added (`name=s3://bucket/prefix`, comma-separated): user environment only. */
  teamStores: 'BOUNDED_EVIDENCE_TEAM_STORES',
} as const;
