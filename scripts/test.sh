#!/usr/bin/env bash
# The whole test suite: installs what it needs, then checks formatting, lints and runs every test.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
./scripts/ensure-sandbox-access.sh
export GHOSTLAB_OPENCODE_BIN="$PWD/tools/npm/node_modules/opencode-linux-x64/bin/opencode"
# Incremental caches cost over a gigabyte of disk and gain nothing on a fresh CI checkout;
# set CARGO_INCREMENTAL=1 to keep them between local runs.
export CARGO_INCREMENTAL="${CARGO_INCREMENTAL:-0}"
cargo fmt --check
cargo clippy --all-targets --locked -- -D warnings
export GHOSTLAB_REQUIRE_ALL=1
cargo test --all-targets --locked
./scripts/check-no-test-hooks.sh
