#!/usr/bin/env node
// Fails (exit 1) on any import circle in src/ or webview/, printing each one. Type-only imports
// and lazy import() count too (no transform, dynamic imports kept): a type circle is the first
// step back to a run-time one, and `import-x/no-cycle` alone misses it. Part of `npm run lint`.
import { parseCircular, parseDependencyTree, prettyCircular } from 'dpdm';

const tree = await parseDependencyTree(['src/**/*.ts', 'webview/**/*.ts'], {
  transform: false,
  skipDynamicImports: false,
});
const circles = parseCircular(tree, false);
if (circles.length > 0) {
  console.error(`${circles.length} import circle(s) (docs/architecture.md §2: imports go one way):`);
  console.error(prettyCircular(circles));
  process.exitCode = 1;
}
