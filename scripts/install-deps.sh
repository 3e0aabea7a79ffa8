#!/usr/bin/env bash
# Installs everything Ghostlab and its tests need on a fresh Debian machine (run as root or
# with sudo): system packages, the pinned OpenCode CLI and MCP servers from npm.
# Idempotent: a second run only checks.
set -euo pipefail
cd "$(dirname "$0")/.."

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

APT_PACKAGES=(bubblewrap poppler-utils tmux fonts-dejavu-core git keyutils dbus ca-certificates nodejs npm chromium python3 python3-yaml)
missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# Node and npm may come from elsewhere (nodesource, nvm); only install them when absent.
if command -v node >/dev/null 2>&1; then missing=("${missing[@]/nodejs}"); fi
if command -v npm >/dev/null 2>&1; then missing=("${missing[@]/npm}"); fi
read -r -a missing <<<"${missing[*]:-}"
if [ "${#missing[@]}" -gt 0 ]; then
  echo "installing system packages: ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

if ! command -v cargo >/dev/null 2>&1; then
  echo "cargo is missing: install Rust (rustup) first" >&2
  exit 2
fi

# Pinned third-party programs: OpenCode CLI and MCP servers (see tools/npm/package.json).
if [ ! -x tools/npm/node_modules/opencode-linux-x64/bin/opencode ] || [ ! -d tools/npm/node_modules/@modelcontextprotocol/server-filesystem ]; then
  echo "installing pinned npm packages into tools/npm"
  npm ci --prefix tools/npm --no-audit --no-fund --loglevel=error
fi
echo "dependencies ready"
