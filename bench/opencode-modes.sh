#!/usr/bin/env bash
# Benchmark (b) of the run engine: per-turn wall time of OpenCode in cold mode (`opencode run`
# per turn) against warm mode (one `opencode serve` per case + `opencode run --attach` per
# turn), the real CLI inside bubblewrap against `ghostlab model-server` (the example's scripted
# agent cassette). Cold and warm alternate round by round so load drifts hit both alike.
#
#   bench/opencode-modes.sh [ROUNDS]        (default 3; each round runs one 2-turn case per mode)
#
# Needs: a built `target/debug/ghostlab` (or GHOSTLAB_BIN) and scripts/install-deps.sh done.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
ROUNDS="${1:-3}"
BIN="${GHOSTLAB_BIN:-$ROOT/target/debug/ghostlab}"
export GHOSTLAB_OPENCODE_BIN="${GHOSTLAB_OPENCODE_BIN:-$ROOT/tools/npm/node_modules/opencode-linux-x64/bin/opencode}"
export RELEASE_TOKEN=bench-token
CASE=hurried-maintainer--wf-prepare-release
WORK="$(mktemp -d /tmp/ghostlab-bench-modes.XXXXXX)"
chmod 755 "$WORK"   # the sandbox user must reach the job's inputs
trap 'rm -rf "$WORK"' EXIT

for mode in cold warm; do
  cp -r "$ROOT/examples/release-bot" "$WORK/$mode"
  rm -rf "$WORK/$mode/.ghostlab"
  sed -i "s#../../tools/npm#$ROOT/tools/npm#" "$WORK/$mode/mcp.json"
  printf 'hosts:\n  opencode:\n    mode: %s\n' "$mode" >>"$WORK/$mode/job.yaml"
  (cd "$WORK/$mode" && "$BIN" generate --job job.yaml >/dev/null)
done

for round in $(seq 1 "$ROUNDS"); do
  for mode in cold warm; do
    # Exit 1 is expected (the offline judge leaves the gates unmet); 2 means it could not run.
    rc=0
    (cd "$WORK/$mode" && "$BIN" test --job job.yaml --case "$CASE" --quiet \
      --agent-cassette cassettes/agent.json >"$WORK/$mode.log" 2>&1) || rc=$?
    if [ "$rc" -gt 1 ]; then echo "$mode round $round could not run (exit $rc):" >&2; tail -5 "$WORK/$mode.log" >&2; exit 1; fi
    echo "round $round: $mode done" >&2
  done
done

# Per case: wall time (case_started → case_finished), turns, and each turn's own latency.
python3 - "$WORK" <<'PY'
import json, pathlib, statistics, sys
from datetime import datetime
work = pathlib.Path(sys.argv[1])
def ts(e):
    # Nanosecond timestamps: keep microseconds, which datetime can parse.
    head, _, frac = e["ts"].rstrip("Z").partition(".")
    return datetime.fromisoformat(f"{head}.{(frac + '000000')[:6]}")
rows = {}
for mode in ("cold", "warm"):
    walls, turns, lat, infra = [], 0, [], 0
    for ev in sorted((work / mode / ".ghostlab/runs").glob("*/cases/*/trial-*/events.jsonl")):
        events = [json.loads(l) for l in ev.read_text().splitlines() if l.strip()]
        started = next(e for e in events if e["type"] == "case_started")
        finished = next(e for e in events if e["type"] == "case_finished")
        agent = [e for e in events if e["type"] == "agent_message"]
        infra += any(e["type"] == "infra_error" for e in events)
        walls.append((ts(finished) - ts(started)).total_seconds())
        turns += len(agent)
        lat += [e["latency_ms"] / 1000 for e in agent]
    rows[mode] = dict(cases=len(walls), infra=infra, turns=turns,
                      per_turn=sum(walls) / max(turns, 1),
                      first=statistics.mean(lat[0::2]) if lat else 0, later=statistics.mean(lat[1::2]) if lat[1:] else 0)
print("| mode | cases | INFRA_ERROR | turns | case wall time per turn | turn 1 latency | turn 2 latency |")
print("| --- | --- | --- | --- | --- | --- | --- |")
for mode, r in rows.items():
    print(f"| {mode} | {r['cases']} | {r['infra']} | {r['turns']} | {r['per_turn']:.2f} s | {r['first']:.2f} s | {r['later']:.2f} s |")
c, w = rows["cold"], rows["warm"]
if c["turns"] and w["turns"]:
    print(f"\nwarm/cold, case wall time per turn (server start included): {w['per_turn'] / c['per_turn']:.2f}")
    print(f"warm/cold, turn 2 latency (server already up): {w['later'] / c['later']:.2f}")
PY
