#!/usr/bin/env bash
# A build of the binary (not a test build) must not carry the test hooks: behaviour only tests
# may switch on (the egress proxy's resolver override, a blinded sandbox watch, honest test
# skips) exists only with the `test-hooks` feature, which `cargo test` turns on through the
# crate's self dev-dependency. Builds the binary as a user would and fails if the name of any
# test-only variable (`GHOSTLAB_TEST_…`, `GHOSTLAB_REQUIRE_ALL`) is anywhere in it.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --locked --bin ghostlab
bin="${CARGO_TARGET_DIR:-target}/debug/ghostlab"
# A binary that is not there cannot be searched: that is a failure, never a pass.
if [ ! -s "$bin" ]; then
    echo "check-no-test-hooks: $bin was not built, so it could not be searched" >&2
    exit 1
fi
if found=$(grep -aoE 'GHOSTLAB_(TEST_[A-Z_]+|REQUIRE_ALL)' "$bin" | sort -u) && [ -n "$found" ]; then
    echo "check-no-test-hooks: $bin reads test-only variables: $(echo $found): a test hook is in the product build" >&2
    exit 1
fi
echo "check-no-test-hooks: $bin has no test hooks"
