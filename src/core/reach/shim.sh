#!/bin/sh
# Bounded Evidence command line, written by the extension on every start: runs its dist/cli.js with the editor's own
# Node (the npm package's bin is the same script naming no path). Arguments pass through untouched.
# The @NAME@ values are filled in single-quoted by src/core/reach/shim.ts; the rest is src/core/reach/shim.sh as is.
# Flags and prefilter fragments are lists, split on purpose:
# shellcheck disable=SC2086
CLI=@CLI@
BE_EXTENSIONS=@EXTENSIONS@
BE_PREFIX=@PREFIX@
BE_ELECTRON=@ELECTRON@
BE_NODE_FLAGS=@NODE_FLAGS@
BE_PREFILTER=@PREFILTER@
# The npm package's copy names no path: its cli.js lies beside the file npm's link resolves to.
if [ -z "$CLI" ]; then
  BE_SELF=$0
  case $BE_SELF in */*) ;; *) BE_SELF=./$BE_SELF ;; esac
  while [ -L "$BE_SELF" ]; do
    BE_L=$(readlink "$BE_SELF")
    case $BE_L in /*) BE_SELF=$BE_L ;; *) BE_SELF=${BE_SELF%/*}/$BE_L ;; esac
  done
  CLI=${BE_SELF%/*}/cli.js
fi
if [ ! -f "$CLI" ] && [ -n "$BE_EXTENSIONS" ]; then
  for c in "$BE_EXTENSIONS"/"$BE_PREFIX"*/dist/cli.js; do [ -f "$c" ] && CLI=$c; done
fi
# The editor's copy is gone (the extension removed): a hook answers nothing, so the agent runs its call as written.
[ -f "$CLI" ] || { [ "${1-}" = hook ] && exit 0; echo 'bounded-evidence: the command line of the editor is gone (the extension was removed or moved)' >&2; exit 127; }
# Started for a hook as the portable finder starts it (not through the variable): routed commands name this script.
case "${1-}" in hook) [ -n "${BOUNDED_EVIDENCE_CLI-}" ] || { BOUNDED_EVIDENCE_CLI=$0; export BOUNDED_EVIDENCE_CLI; } ;; esac
# The hook has a small bundle of its own beside cli.js: it runs before every agent command.
case "${1-}" in hook) [ -f "${CLI%cli.js}hook.js" ] && CLI="${CLI%cli.js}hook.js" ;; esac
# An event holding no routed tool's fragment (src/core/reach/agents/, `prefilter`) is answered, nothing, without Node:
# VS Code runs a hook on every tool call. Only `--record-post-tool-use` needs every event; an `--agent` line is started
# by its client's matcher for the routed tool alone, so there the filter would only cost a `cat`.
if [ "${1-}" = hook ]; then
  case " $* " in
    *" --record-post-tool-use "* | *" --agent "*) ;;
    *)
      BE_EVENT=$(cat)
      BE_HIT=
      for BE_P in $BE_PREFILTER; do case $BE_EVENT in *"$BE_P"*) BE_HIT=1 ;; esac; done
      [ -n "$BE_HIT" ] || exit 0
      exec 0<<BE_EVENT_END
$BE_EVENT
BE_EVENT_END
      unset BE_EVENT BE_HIT BE_P ;;
  esac
fi
# Node keeps the hook's and the recorder's compiled code in a per-user cache it checks against the file and itself.
# Named only once the folder exists: Node spins on a cache folder it cannot make in some places (/proc).
case "${1-}" in hook | keep)
  BE_CACHE=${XDG_CACHE_HOME:-${HOME:+$HOME/.cache}}
  case $BE_CACHE in
    /?*) BE_CACHE=$BE_CACHE/bounded-evidence/node-compile-cache
      [ -d "$BE_CACHE" ] || (umask 077 && mkdir -p "$BE_CACHE") 2>/dev/null ;;
    *) BE_CACHE= ;;
  esac
  if [ -z "${NODE_COMPILE_CACHE-}" ] && [ -n "$BE_CACHE" ] && [ -d "$BE_CACHE" ] && [ -w "$BE_CACHE" ]; then
    NODE_COMPILE_CACHE=$BE_CACHE
    export NODE_COMPILE_CACHE
  fi ;;
esac
BE_HOME=@HOME@
[ -z "$BE_HOME" ] || { BOUNDED_EVIDENCE_HOME=$BE_HOME; export BOUNDED_EVIDENCE_HOME; }
NODE=@NODE@
# A routed command's second half (docs/contracts.md §6.1): a small output needs no Node.
if [ "$BE_ELECTRON" = 1 ]; then
  case ${1-} in keep | watching) ELECTRON_RUN_AS_NODE=1; export ELECTRON_RUN_AS_NODE ;; esac
  BE_FLAGS=
else
  BE_FLAGS=$BE_NODE_FLAGS
fi
# `watch SPOOL PID DEADLINE WHOLE [IDLE] STATUS` (the routed text's first command, src/core/reach/rewrite.ts) starts
# the watcher in a session of its own, its stdout the client's, and exits with STATUS. The watcher: at DEADLINE (ms
# since the epoch, before the client's time limit) gives what the command printed so far as `keep` would (whole when
# small, else `keep --interim`'s observation); when the shell PID is killed first, records the spool (`keep --killed`).
# `keep` ends it once the command has ended. IDLE (ms) is a limit on the client's silence (Gemini CLI): from
# DEADLINE on, while the command writes, an empty SGR keeps the client waiting; once it has not, the output so far.
if [ "${1-}" = watch ] && { [ $# -eq 6 ] || [ $# -eq 7 ]; }; then
  if [ $# -eq 6 ]; then BE_I=0; BE_S=$6; else BE_I=$6; BE_S=$7; fi
  if command -v setsid >/dev/null 2>&1; then setsid sh "$0" watching "$2" "$3" "$4" "$5" "$BE_I" </dev/null 2>/dev/null & fi
  exit "$BE_S"
fi
if [ "${1-}" = watching ] && [ $# -eq 6 ]; then
  BE_D=$2; BE_P=$3; BE_G=; BE_N=$4; BE_I=$6; BE_Z="0 0"
  BE_M=$((BE_I / 3)); [ "$BE_M" -le 10000 ] || BE_M=10000
  [ -x "$NODE" ] || NODE=node
  echo $$ >"$BE_D/watch" 2>/dev/null || exit 0
  while [ -d "$BE_D" ] && [ ! -f "$BE_D/status" ]; do
    if ! kill -0 "$BE_P" 2>/dev/null || [ "$(cut -d' ' -f3 "/proc/$BE_P/stat" 2>/dev/null)" = Z ]; then
      [ -f "$BE_D/status" ] || exec "$NODE" $BE_FLAGS "$CLI" keep --killed "$BE_D" </dev/null >/dev/null 2>&1
      exit 0
    fi
    BE_GIVE=
    if [ "$(date +%s%3N)" -ge "$BE_N" ] 2>/dev/null; then
      if [ "$BE_I" = 0 ]; then BE_GIVE=1
      else
        BE_N=$(($(date +%s%3N) + BE_I - BE_M))
        BE_W="$(wc -c <"$BE_D/1.$BE_P" 2>/dev/null) $(wc -c <"$BE_D/2" 2>/dev/null)"
        # Written since the client last heard from us: unrouted, that output would have reset its clock. A terminal
        # client counts nothing invisible before the first visible byte: the output so far then.
        if [ "$BE_W" = "0 0" ]; then :
        elif [ "$BE_W" != "$BE_Z" ] && { [ -n "$BE_G" ] || [ ! -t 1 ]; }; then printf '\033[m'
        else BE_GIVE=1; fi
        BE_Z=$BE_W
      fi
    fi
    if [ -n "$BE_GIVE" ] && [ -z "$BE_G" ] && mkdir "$BE_D/given" 2>/dev/null; then
      # Once claimed, `keep` waits for the sizes: its end signal must not cut this short.
      trap '' TERM
      BE_G=1; BE_O=$BE_D/1.$BE_P; BE_SO=$(wc -c <"$BE_O"); BE_SE=$(wc -c <"$BE_D/2")
      if [ -f "$BE_D/status" ]; then BE_SO=0; BE_SE=0
      elif [ $((BE_SO + BE_SE)) -le "$5" ]; then
        { head -c "$BE_SO" "$BE_O"; head -c "$BE_SE" "$BE_D/2"; } || { BE_SO=0; BE_SE=0; }
      else
        "$NODE" $BE_FLAGS "$CLI" keep --interim "$BE_D" "$BE_SO" "$BE_SE" </dev/null || { BE_SO=0; BE_SE=0; }
      fi
      echo "$BE_SO $BE_SE" >"$BE_D/given/sizes.$$" && mv "$BE_D/given/sizes.$$" "$BE_D/given/sizes"
      trap - TERM
    fi
    sleep 0.2
  done
  exit 0
fi
# `keep SPOOL STATUS WHOLE` (src/core/reach/rewrite.ts `givenBackWhole` is the same rule): a small output is printed as
# it was with `cat` and recorded by `keep --quiet` in the background (the command waits for no Node); a large one goes
# to `keep` in the foreground (the observation). Exits with STATUS whatever happens: the routed command's status is
# the command's. The stdout file is `1.<the shell's pid>` (rewrite.ts).
if [ "${1-}" = keep ] && [ $# -eq 4 ]; then
  BE_D=$2; BE_S=$3; BE_O=/dev/null
  for BE_F in "$BE_D"/1 "$BE_D"/1.*; do [ -f "$BE_F" ] && BE_O=$BE_F; done
  [ -x "$NODE" ] || NODE=node
  # The status first: `watch` gives nothing more once it is there, and a recorder that dies anyway leaves an ended
  # spool, which the next keep records.
  echo "$BE_S" >"$BE_D/status" 2>/dev/null
  # `watch` holds the client's stdout: ended now, not at its next look.
  [ -f "$BE_D/watch" ] && read -r BE_WP <"$BE_D/watch" && kill "$BE_WP" 2>/dev/null
  # What `watch` already gave the client at its time limit is not given twice.
  BE_GO=0; BE_GE=0
  if [ -d "$BE_D/given" ]; then
    BE_I=0
    while [ ! -f "$BE_D/given/sizes" ] && [ "$BE_I" -lt 50 ]; do sleep 0.1; BE_I=$((BE_I + 1)); done
    read -r BE_GO BE_GE <"$BE_D/given/sizes" 2>/dev/null || { BE_GO=0; BE_GE=0; }
  fi
  # An empty file is sized and printed without a process: most commands write nothing to stderr.
  BE_ON=0; BE_EN=0; BE_SIZED=1
  [ -f "$BE_O" ] && [ ! -s "$BE_O" ] || BE_ON=$(wc -c <"$BE_O") || BE_SIZED=
  [ -f "$BE_D/2" ] && [ ! -s "$BE_D/2" ] || BE_EN=$(wc -c <"$BE_D/2") || BE_SIZED=
  if [ -n "$BE_SIZED" ] && [ "$(( BE_ON + BE_EN ))" -le "$4" ] 2>/dev/null; then
    if [ "$BE_GO$BE_GE" = 00 ]; then
      [ "$BE_ON" = 0 ] || cat "$BE_O"
      [ "$BE_EN" = 0 ] || cat "$BE_D/2" >&2
    else tail -c +$((BE_GO + 1)) "$BE_O"; tail -c +$((BE_GE + 1)) "$BE_D/2" >&2; fi
    # In a session of its own: Codex and opencode end the command's process group as it exits. setsid exits once sh
    # has forked the recorder, so the group cannot end it first; `( … & )` keeps an interactive shell from printing a
    # job line.
    if command -v setsid >/dev/null 2>&1; then
      setsid sh -c '"$@" </dev/null >/dev/null 2>&1 &' sh "$NODE" $BE_FLAGS "$CLI" keep --quiet "$BE_D" "$BE_S" 2>/dev/null ||
        ( "$NODE" $BE_FLAGS "$CLI" keep --quiet "$BE_D" "$BE_S" </dev/null >/dev/null 2>&1 & )
    else
      ( "$NODE" $BE_FLAGS "$CLI" keep --quiet "$BE_D" "$BE_S" </dev/null >/dev/null 2>&1 & )
    fi
  else
  # keep prints the observation, or the output itself when the evidence cannot be kept; with no Node at all, sh prints
  # it.
  if [ -x "$NODE" ] || command -v "$NODE" >/dev/null 2>&1; then "$NODE" $BE_FLAGS "$CLI" keep "$BE_D" "$BE_S" "$4"
  else cat "$BE_O"; cat "$BE_D/2" >&2; rm -rf "$BE_D"; echo 'bounded-evidence: evidence not kept (no Node to record it); the command ran unrouted' >&2; fi
  fi
  exit "$BE_S"
fi
if [ -x "$NODE" ]; then
  if [ "$BE_ELECTRON" = 1 ]; then
    # The command line puts the variable back as it was before running anything (src/cli/main.ts).
    BOUNDED_EVIDENCE_ELECTRON_WAS="${ELECTRON_RUN_AS_NODE-}"
    export BOUNDED_EVIDENCE_ELECTRON_WAS
    ELECTRON_RUN_AS_NODE=1 exec "$NODE" "$CLI" "$@"
  fi
  exec "$NODE" $BE_NODE_FLAGS "$CLI" "$@"
fi
# The fallback: whatever Node is on PATH (the command line itself refuses one older than 22.14 in one line).
command -v node >/dev/null 2>&1 || { echo "bounded-evidence needs Node 22.14 or newer (none found: the editor's Node is gone and no node is on PATH)" >&2; exit 127; }
exec node $BE_NODE_FLAGS "$CLI" "$@"
