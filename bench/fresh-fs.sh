#!/usr/bin/env bash
# Runs a command with TMPDIR on a new, empty ext4 file system (a journaled 4 GiB loop file,
# made and removed around the command), so that benchmark rounds do not slow each other down:
# on an ext4 that has just deleted many files, every new inode costs more (docs/benchmarks.md, details in docs/benchmarks-history.md).
# Needs root (mount). Usage: bench/fresh-fs.sh COMMAND [ARGS...]
#   e.g. bench/fresh-fs.sh target/release/deps/harness-<hash> --bench
set -euo pipefail
[ "$#" -ge 1 ] || { echo "usage: $0 COMMAND [ARGS...]" >&2; exit 2; }
image=$(mktemp /var/tmp/ghostlab-benchfs.XXXXXX)
mnt=$(mktemp -d /tmp/ghostlab-benchfs-mnt.XXXXXX)
cleanup() { umount "$mnt" 2>/dev/null || true; rmdir "$mnt" 2>/dev/null || true; rm -f "$image"; }
trap cleanup EXIT
truncate -s 4G "$image"
mkfs.ext4 -q -F "$image"
mount -o loop "$image" "$mnt"
mkdir -m 1777 "$mnt/tmp"
TMPDIR="$mnt/tmp" "$@"
