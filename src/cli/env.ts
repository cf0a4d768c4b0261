/**
 * The environment variables the command line reads, in a module with no imports: the hook's own
 * small bundle (dist/hook.js, docs/architecture.md §2.4) needs them without loading the stores.
 */

/** The environment variable the extension sets in every integrated terminal. */
export const STORAGE_ENV = 'BOUNDED_EVIDENCE_STORAGE';
/** The environment variable naming the command that runs this command line (the extension's shim). */
export const CLI_ENV = 'BOUNDED_EVIDENCE_CLI';
