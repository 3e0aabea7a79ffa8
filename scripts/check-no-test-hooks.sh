#!/usr/bin/env bash
# A build of the binary (not a test build) must not carry the test hooks: the egress proxy's
# resolver override (src/sandbox/test_resolve.rs) exists only with the `test-hooks` feature,
# which `cargo test` turns on through the crate's self dev-dependency. Builds the binary as a
# user would and fails if the override's variable name is anywhere in it.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --locked --bin ghostlab
bin="${CARGO_TARGET_DIR:-target}/debug/ghostlab"
if grep -qa GHOSTLAB_TEST_EGRESS_RESOLVE "$bin"; then
    echo "check-no-test-hooks: $bin reads GHOSTLAB_TEST_EGRESS_RESOLVE: a test hook is in the product build" >&2
    exit 1
fi
echo "check-no-test-hooks: $bin has no test hooks"
