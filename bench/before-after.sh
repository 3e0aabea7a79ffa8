#!/usr/bin/env bash
# Before → after, as ratios in one run: two `ghostlab` binaries (e.g. one built from main and
# one from a branch) alternate round by round on the same 100-case mock dataset as
# bench/compare-python (mock agent, local backend, offline emulator and judge, 3 turns per case).
#
# usage: bench/before-after.sh BEFORE_BIN AFTER_BIN   (ROUNDS=5 CASES=100 PARALLEL=1)
# Prints per-round wall seconds, medians and after/before ratios for:
#   test           `test` as each binary does it by default (before: with the PDF)
#   test --pdf     the after binary asked for the PDF too (same work as before's default)
#   fsyncs         fsync+fdatasync calls of one more run per binary (strace -f), when strace exists
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
BEFORE=$(realpath "$1"); AFTER=$(realpath "$2")
ROUNDS=${ROUNDS:-5}; CASES=${CASES:-100}; PARALLEL=${PARALLEL:-1}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/ghostlab-before-after.XXXXXX")
mkdir -p "$WORK/mock"
cp "$HERE/mock-job.yaml" "$WORK/mock/job.yaml"
python3 "$HERE/compare-python/gen_cases.py" "$CASES" "$WORK/mock/.ghostlab" "$WORK/py-unused" >/dev/null
t() { local s e; s=$(date +%s.%N); "$@" >/dev/null 2>&1 || true; e=$(date +%s.%N); echo "$e - $s" | bc; }
run() { "$1" test --job "$WORK/mock/job.yaml" --parallel "$PARALLEL" -q --run "$WORK/runs/$2" "${@:3}"; }
run "$BEFORE" warm-b >/dev/null 2>&1 || true; run "$AFTER" warm-a >/dev/null 2>&1 || true
: >"$WORK/b"; : >"$WORK/a"; : >"$WORK/ap"
for i in $(seq 1 "$ROUNDS"); do
  t run "$BEFORE" "b$i" >>"$WORK/b"
  t run "$AFTER" "a$i" >>"$WORK/a"
  t run "$AFTER" "ap$i" --pdf >>"$WORK/ap"
done
med() { sort -n "$1" | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
B=$(med "$WORK/b"); A=$(med "$WORK/a"); AP=$(med "$WORK/ap")
TURNS=$(( CASES * 3 ))
echo "cases=$CASES parallel=$PARALLEL rounds=$ROUNDS load=$(cut -d' ' -f1-3 /proc/loadavg)"
echo "before rounds: $(tr '\n' ' ' <"$WORK/b")"
echo "after  rounds: $(tr '\n' ' ' <"$WORK/a")"
echo "after --pdf  : $(tr '\n' ' ' <"$WORK/ap")"
printf 'median wall s: before %.3f  after %.3f (%.2fx)  after --pdf %.3f (%.2fx)\n' "$B" "$A" "$(echo "$A / $B" | bc -l)" "$AP" "$(echo "$AP / $B" | bc -l)"
printf 'mock turns/s (whole process): before %.0f  after %.0f\n' "$(echo "$TURNS / $B" | bc -l)" "$(echo "$TURNS / $A" | bc -l)"
if command -v strace >/dev/null 2>&1; then
  for side in BEFORE AFTER; do
    bin=${!side}
    strace -f -qq -e trace=fsync,fdatasync -o "$WORK/strace-$side" "$bin" test --job "$WORK/mock/job.yaml" \
      --parallel "$PARALLEL" -q --run "$WORK/runs/strace-$side" >/dev/null 2>&1 || true
    echo "fsync+fdatasync calls $side: $(grep -cE '(fsync|fdatasync)\(' "$WORK/strace-$side")"
  done
fi
echo "work folder: $WORK"
