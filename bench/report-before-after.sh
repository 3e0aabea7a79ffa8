#!/usr/bin/env bash
# The run's end as users wait for it, before → after as ratios in one run: two `ghostlab`
# binaries alternate round by round; a round is, in a new folder, a CASES-case mock `test`
# (mock agent, local backend, offline emulator and judge, 3 turns per case, md + html report
# written by `test` itself) followed by a re-rendered `ghostlab report --md --html` of that run.
#
# usage: bench/report-before-after.sh BEFORE_BIN AFTER_BIN   (ROUNDS=6 CASES=1000 PARALLEL=8)
#   FRESH_FS=1 (root): each round on a new journaled ext4 (bench/fresh-fs.sh), so rounds do not
#   slow each other down through the file system.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
if [ "${1:-}" = "--round" ]; then
  # One round: BIN JOB_DIR; prints "test SECONDS report SECONDS".
  bin=$2; w=$(mktemp -d "${TMPDIR:-/tmp}/ghostlab-report-round.XXXXXX"); cp -r "$3" "$w/mock"
  t() { local s e; s=$(date +%s.%N); "$@" >/dev/null 2>&1 || true; e=$(date +%s.%N); echo "$e - $s" | bc; }
  test_s=$(t "$bin" test --job "$w/mock/job.yaml" --parallel "${PARALLEL:-8}" -q --run "$w/run")
  [ -f "$w/run/summary.json" ] || { echo "the test run wrote no summary.json" >&2; exit 3; }
  report_s=$(t "$bin" report --job "$w/mock/job.yaml" --run "$w/run" --md "$w/r.md" --html "$w/r.html")
  [ -s "$w/r.html" ] || { echo "the report wrote no html" >&2; exit 3; }
  echo "test $test_s report $report_s"
  rm -rf "$w"
  exit 0
fi
BEFORE=$(realpath "$1"); AFTER=$(realpath "$2")
ROUNDS=${ROUNDS:-6}; CASES=${CASES:-1000}; export PARALLEL=${PARALLEL:-8}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/ghostlab-report-before-after.XXXXXX")
mkdir -p "$WORK/mock"
cp "$HERE/mock-job.yaml" "$WORK/mock/job.yaml"
python3 "$HERE/compare-python/gen_cases.py" "$CASES" "$WORK/mock/.ghostlab" "$WORK/py-unused" >/dev/null
round() {
  if [ "${FRESH_FS:-0}" = 1 ]; then "$HERE/fresh-fs.sh" "$HERE/report-before-after.sh" --round "$1" "$WORK/mock"
  else "$HERE/report-before-after.sh" --round "$1" "$WORK/mock"; fi
}
: >"$WORK/b"; : >"$WORK/a"
for i in $(seq 1 "$ROUNDS"); do
  round "$BEFORE" >>"$WORK/b"
  round "$AFTER" >>"$WORK/a"
done
med() { awk -v f="$2" '{print $f}' "$1" | sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
echo "cases=$CASES parallel=$PARALLEL rounds=$ROUNDS fresh_fs=${FRESH_FS:-0} load=$(cut -d' ' -f1-3 /proc/loadavg)"
for what in "test 2" "report 4"; do
  set -- $what
  echo "$1 before: $(awk -v f="$2" '{printf "%.3f ", $f}' "$WORK/b")"
  echo "$1 after : $(awk -v f="$2" '{printf "%.3f ", $f}' "$WORK/a")"
  B=$(med "$WORK/b" "$2"); A=$(med "$WORK/a" "$2")
  printf '%s median s: before %.3f  after %.3f (%.2fx)\n' "$1" "$B" "$A" "$(echo "$A / $B" | bc -l)"
done
rm -rf "$WORK"
