#!/usr/bin/env bash
# Run as root, sandboxed processes (bubblewrap itself, the agent, MCP servers) run as an
# unprivileged user (uid 65534), so every folder above this checkout must be searchable by
# others. In CI (an ephemeral machine, CI=true) grant search permission (o+x, not listing) on
# the folders that lack it and say so; elsewhere explain and stop.
set -euo pipefail
cd "$(dirname "$0")/.."
[ "$(id -u)" -eq 0 ] || exit 0
blocked=()
d="$PWD"
while [ "$d" != "/" ]; do
  perm=$(stat -c '%A' "$d")
  case "${perm:9:1}" in x|t) ;; *) blocked+=("$d") ;; esac
  d=$(dirname "$d")
done
[ "${#blocked[@]}" -eq 0 ] && exit 0
if [ "${CI:-}" = "true" ]; then
  echo "granting search permission (o+x) on: ${blocked[*]} — the unprivileged sandbox user must reach this checkout"
  chmod o+x "${blocked[@]}"
else
  echo "error: the sandbox user (uid 65534) cannot reach this checkout: ${blocked[*]} lack search permission for others." >&2
  echo "Move the checkout (e.g. under /opt or /srv), or run: chmod o+x ${blocked[*]}" >&2
  exit 2
fi
