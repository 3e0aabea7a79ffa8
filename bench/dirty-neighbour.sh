#!/usr/bin/env bash
# The price of syncfs (util::fs_sync): two release builds of the harness bench, alternating, each
# round on a fresh journaled ext4 (bench/fresh-fs.sh) where a neighbour has just left MB megabytes
# of unwritten data (`dd`, no sync) before the bench starts. Prints the kernel's Dirty/Writeback
# at the bench's start, (a) mock turns/s and the fraction of ideal at 64 (8 waves). Needs root.
#   bench/dirty-neighbour.sh BEFORE_BENCH_BIN AFTER_BENCH_BIN [MB] [ROUNDS]
set -euo pipefail
[ "$#" -ge 2 ] || { echo "usage: $0 BEFORE_BENCH_BIN AFTER_BENCH_BIN [MB] [ROUNDS]" >&2; exit 2; }
before=$1 after=$2 mb=${3:-1500} rounds=${4:-2}
here=$(cd "$(dirname "$0")" && pwd)

if [ "${GHOSTLAB_NEIGHBOUR_INNER:-}" = 1 ]; then
  # Inside the fresh file system: the neighbour's data, then the bench.
  dd if=/dev/zero of="$TMPDIR/neighbour.bin" bs=1M count="$mb" status=none
  grep -E "^(Dirty|Writeback):" /proc/meminfo | tr -s ' ' | tr '\n' ' '
  echo
  exec "$before" --bench
fi

round() { # label binary
  local out a c8
  out=$(GHOSTLAB_NEIGHBOUR_INNER=1 bash "$here/fresh-fs.sh" "$0" "$2" "$2" "$mb" 2>&1)
  a=$(sed -nE 's/^\(a\).* ([0-9]+) turns\/s.*/\1/p' <<<"$out")
  c8=$(sed -nE 's/.*8 waves, parallel 64:.* ([0-9.]+) of ideal.*/\1/p' <<<"$out")
  [ -n "$a" ] && [ -n "$c8" ] || { echo "$1: the bench printed no figures:" >&2; echo "$out" >&2; exit 1; }
  echo "$1 | $(head -1 <<<"$out") | (a) $a turns/s | ideal@64 (8 waves) $c8"
}

for r in $(seq "$rounds"); do
  round before "$before"
  round after "$after"
done
