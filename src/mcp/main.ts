import { exitOnOldNode } from '../core/nodeVersion.js';
import { restartWithSmallYoungGeneration } from '../core/smallYoungGeneration.js';
import { main } from './server.js';

exitOnOldNode();
restartWithSmallYoungGeneration();
void main().then((code) => {
  process.exitCode = code;
  // Anything left holding the event loop (a stuck child pipe) must not keep a closed server alive.
  setTimeout(() => process.exit(code), 2_000).unref();
});
