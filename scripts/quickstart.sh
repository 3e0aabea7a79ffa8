#!/usr/bin/env bash
# Installs what Ghostlab needs, builds it, and runs the main job offline: `ghostlab lab --yes`
# on a copy of the bundled release-bot example. All twelve steps run for real: MCP discovery
# inside bubblewrap, offline purpose profile, personas and scenarios, then every scenario
# against the real OpenCode CLI in bubblewrap, its model served from a scripted cassette, and
# the rollout report (Markdown, HTML, PDF).
#
# Offline there is no model judge: only criteria bound to evidence are answered, so risk cases
# about observable acts end PASS or FAIL (the cassette keeps one slip) and the rest stay
# INCONCLUSIVE; configure `generation.judge` with a model for the rest
# (docs/verdicts.md, docs/models-and-cassettes.md).
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
# The roles are pinned offline so a provider key in your environment is not spent here.
# `lab --yes` exits like `ghostlab test`: offline the pass-rate gate is not met, so 1 is expected.
rc=0
"$GL" lab --yes --job "$WORK/release-bot/job.yaml" --agent-cassette "$WORK/release-bot/cassettes/agent.json" --parallel 2 \
  --proposer-model offline --emulator-model offline --judge-model offline || rc=$?
if [ "$rc" -gt 1 ]; then
  echo "== ghostlab lab failed (exit $rc)" >&2
  exit "$rc"
fi
echo "== gates $([ "$rc" -eq 0 ] && echo met || echo 'NOT met (expected offline: meaning needs a judge)')"
echo "== done: job.yaml, runs and reports are under $WORK/release-bot/.ghostlab"
