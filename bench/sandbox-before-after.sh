#!/bin/sh
# Sandbox overhead before -> after, in one run: two builds of bench/sandbox.rs (e.g. the test
# binary of the commit before a change and of the change) run alternately ROUNDS_EACH rounds
# per invocation, PAIRS times; prints the median of each row over the pairs, after/before, and
# the fsync calls each build makes for the same work (strace, when installed).
#
#   bench/sandbox-before-after.sh BEFORE_BIN AFTER_BIN [PAIRS] [ROUNDS_EACH]
#
# Build a bench binary with `cargo test --bench sandbox --no-run` (the path is printed) at each
# commit; the test profile is what the figures in docs/benchmarks-sandbox.md use.
set -eu
before=$1
after=$2
pairs=${3:-3}
rounds=${4:-10}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
i=1
while [ "$i" -le "$pairs" ]; do
    "$before" "$rounds" | grep '^| [a-z]' | grep -v '^| measurement' >>"$out/before"
    "$after" "$rounds" | grep '^| [a-z]' | grep -v '^| measurement' >>"$out/after"
    i=$((i + 1))
done
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| measurement | before ms | after ms | after/before |"
echo "|---|---|---|---|"
python3 - "$out/before" "$out/after" <<'PY'
import statistics, sys
def rows(path):
    d = {}
    for line in open(path):
        cells = [c.strip() for c in line.strip().strip('|').split('|')]
        d.setdefault(cells[0], []).append(float(cells[1]))
    return d
b, a = rows(sys.argv[1]), rows(sys.argv[2])
for name in list(a) + [n for n in b if n not in a]:
    mb = statistics.median(b[name]) if name in b else None
    ma = statistics.median(a[name]) if name in a else None
    ratio = f"{ma / mb:.2f}" if mb and ma else "—"
    fmt = lambda m: f"{m:.2f}" if m is not None else "(not in this build)"
    print(f"| {name} | {fmt(mb)} | {fmt(ma)} | {ratio} |")
PY
if command -v strace >/dev/null; then
    echo
    for which in before after; do
        eval bin=\$$which
        n=$(strace -f -c -e trace=fsync,fdatasync -o "$out/strace-$which" "$bin" 2 >/dev/null 2>&1; \
            awk '$NF=="fsync"||$NF=="fdatasync"{s+=$4} END{print s+0}' "$out/strace-$which")
        echo "fsync+fdatasync calls, one bench invocation with 2 rounds ($which): $n"
    done
fi
