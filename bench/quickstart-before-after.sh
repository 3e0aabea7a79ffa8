#!/usr/bin/env bash
# The quick start's offline run (scripts/quickstart.sh's `ghostlab lab --yes` on a fresh copy of
# the bundled release-bot example: discovery, offline profile and dataset, every scenario
# against the real OpenCode in bubblewrap, report) timed with two binaries, alternating round
# by round so load drifts hit both alike. Prints each run's wall time and verdict counts, then
# the medians and after/before.
#
#   bench/quickstart-before-after.sh BEFORE_BIN AFTER_BIN [ROUNDS]     (default 2 rounds)
#
# Needs scripts/install-deps.sh done (OpenCode and the MCP servers under tools/npm).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BEFORE="$1"; AFTER="$2"; ROUNDS="${3:-2}"
export GHOSTLAB_OPENCODE_BIN="${GHOSTLAB_OPENCODE_BIN:-$ROOT/tools/npm/node_modules/opencode-linux-x64/bin/opencode}"
export RELEASE_TOKEN=bench-token
WORK="$(mktemp -d /tmp/ghostlab-bench-quickstart.XXXXXX)"
chmod 755 "$WORK"   # the sandbox user must reach the job's inputs
trap 'rm -rf "$WORK"' EXIT
declare -A times

one_run() { # label binary round
  local dir="$WORK/$1-$3"
  cp -r "$ROOT/examples/release-bot" "$dir"
  rm -rf "$dir/.ghostlab"
  sed -i "s#../../tools/npm#$ROOT/tools/npm#" "$dir/mcp.json"
  local start end rc=0
  start=$(date +%s.%N)
  "$2" lab --yes --job "$dir/job.yaml" --agent-cassette "$dir/cassettes/agent.json" --parallel 2 \
    --proposer-model offline --emulator-model offline --judge-model offline >"$dir.log" 2>&1 || rc=$?
  end=$(date +%s.%N)
  if [ "$rc" -gt 1 ]; then echo "$1 round $3: lab failed (exit $rc), see $dir.log" >&2; trap - EXIT; exit "$rc"; fi
  local secs counts
  secs=$(echo "$end - $start" | bc)
  counts=$(python3 - "$dir" <<'PY'
import glob, json, sys
s = json.load(open(sorted(glob.glob(sys.argv[1] + "/.ghostlab/runs/*/summary.json"))[-1]))["summary"]
print(f"{s['trials']} trials, {s['pass']} PASS, {s['inconclusive']} INCONCLUSIVE, {s['infra_error']} INFRA_ERROR")
PY
)
  echo "$1 round $3: ${secs}s  ($counts; load $(cut -d' ' -f1-3 /proc/loadavg))"
  times[$1]="${times[$1]:-} $secs"
  rm -rf "$dir"
}

for round in $(seq 1 "$ROUNDS"); do
  one_run before "$BEFORE" "$round"
  one_run after "$AFTER" "$round"
done

median() { tr ' ' '\n' | sed '/^$/d' | sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
b=$(echo "${times[before]}" | median); a=$(echo "${times[after]}" | median)
echo "median: before ${b}s, after ${a}s, after/before $(echo "scale=2; $a / $b" | bc)"
