#!/usr/bin/env bash
# Runs two release builds of the harness bench alternately, each round on a fresh journaled ext4
# (bench/fresh-fs.sh), and prints per round and as medians: (a) mock turns/s and (c) the
# fraction of ideal at --parallel 64 (2 and 8 waves). Needs root (fresh-fs.sh mounts).
#
# Build each binary with `cargo bench --bench harness --no-run` at the commit to compare and
# copy the printed executable aside first, e.g.:
#   bench/harness-before-after.sh /work/bin/harness-before /work/bin/harness-after 6
set -euo pipefail
[ "$#" -ge 2 ] || { echo "usage: $0 BEFORE_BENCH_BIN AFTER_BENCH_BIN [ROUNDS]" >&2; exit 2; }
before=$1 after=$2 rounds=${3:-6}
here=$(cd "$(dirname "$0")" && pwd)
results=$(mktemp)
trap 'rm -f "$results"' EXIT

round() { # label binary
  local out a c2 c8
  out=$(bash "$here/fresh-fs.sh" "$2" --bench 2>&1)
  a=$(sed -nE 's/^\(a\).* ([0-9]+) turns\/s.*/\1/p' <<<"$out")
  c2=$(sed -nE 's/.*2 waves, parallel 64:.* ([0-9.]+) of ideal.*/\1/p' <<<"$out")
  c8=$(sed -nE 's/.*8 waves, parallel 64:.* ([0-9.]+) of ideal.*/\1/p' <<<"$out")
  [ -n "$a" ] && [ -n "$c2" ] && [ -n "$c8" ] || { echo "$1: the bench printed no figures:" >&2; echo "$out" >&2; exit 1; }
  echo "$1 $a $c2 $c8" | tee -a "$results"
}

echo "label turns/s@(a) ideal@64(2 waves) ideal@64(8 waves)"
for r in $(seq "$rounds"); do
  round before "$before"
  round after "$after"
done

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
for label in before after; do
  a=$(awk -v l="$label" '$1 == l { print $2 }' "$results" | median)
  c2=$(awk -v l="$label" '$1 == l { print $3 }' "$results" | median)
  c8=$(awk -v l="$label" '$1 == l { print $4 }' "$results" | median)
  echo "median $label: (a) $a turns/s, @64 2 waves $c2, 8 waves $c8"
done
awk '$1 == "before" { b[++nb] = $2 } $1 == "after" { a[++na] = $2 } END {
  w = 0; for (i = 1; i <= nb; i++) if (a[i] > b[i]) w++
  printf "(a): after faster in %d of %d rounds\n", w, nb }' "$results"
