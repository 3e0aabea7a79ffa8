#!/usr/bin/env bash
# Installs what Ghostlab needs, builds it, and runs the main job on the bundled example,
# offline: validate → emit the OpenCode config → (and every later stage this build has).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
cargo build --release --locked
GL="$PWD/target/release/ghostlab"
JOB=examples/release-bot/job.yaml
STATE="${GHOSTLAB_QUICKSTART_DIR:-$(mktemp -d -t ghostlab-quickstart-XXXXXX)}"
echo "== validate"
"$GL" validate --job "$JOB"
echo "== emit the OpenCode project config"
"$GL" emit --job "$JOB" --out "$STATE/opencode"
for stage in discover generate; do
  if "$GL" "$stage" --help >/dev/null 2>&1; then
    echo "== $stage"
    "$GL" "$stage" --job "$JOB"
  fi
done
if "$GL" lab --help >/dev/null 2>&1; then
  echo "== lab (headless, offline)"
  "$GL" lab --yes --job "$JOB"
fi
echo "done; artifacts in $STATE and examples/release-bot/.ghostlab"
