#!/usr/bin/env bash
# Installs what Ghostlab needs, builds it, and runs the main job offline: `ghostlab lab --yes`
# on a copy of the bundled release-bot example. All twelve steps run for real: MCP discovery
# inside bubblewrap, offline purpose profile, personas and scenarios, then every scenario
# against the real OpenCode CLI in bubblewrap, its model served from a scripted cassette, and
# the rollout report (Markdown, HTML, PDF).
#
# Offline there is no model judge, so verdicts are INCONCLUSIVE (never PASS); configure
# `generation.judge` with a model for real verdicts (docs/models-and-cassettes.md).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
./scripts/ensure-sandbox-access.sh
cargo build --locked
GL="$PWD/target/debug/ghostlab"
export GHOSTLAB_OPENCODE_BIN="$PWD/tools/npm/node_modules/opencode-linux-x64/bin/opencode"
# The example's release MCP server declares a publishing token as ${RELEASE_TOKEN}; a demo
# value stands in unless you export a real one. It never reaches a file, a log or an argv.
export RELEASE_TOKEN="${RELEASE_TOKEN:-demo-token-not-a-secret}"

WORK=.quickstart
rm -rf "$WORK/release-bot"
mkdir -p "$WORK"
cp -r examples/release-bot "$WORK/release-bot"
rm -rf "$WORK/release-bot/.ghostlab"
echo "== ghostlab lab --yes on $WORK/release-bot (offline)"
"$GL" lab --yes --job "$WORK/release-bot/job.yaml" --agent-cassette "$WORK/release-bot/cassettes/agent.json" --parallel 2
echo "== done: job.yaml, runs and reports are under $WORK/release-bot/.ghostlab"
