#!/usr/bin/env bash
# Side-by-side timings: the Rust `ghostlab` against its Python predecessor `ghostlab==0.4.0`
# (PyPI; import package `rehearsal`), same work, one run, same machine.
#
# usage: bench/compare-python/run.sh [RUST_BIN]
#   RUST_BIN        the Rust binary (also $GHOSTLAB_BIN; default target/debug/ghostlab)
#   ROUNDS=5        timed rounds of the slow tasks (median reported)
#   HELP_ROUNDS=10  timed rounds of `--help`
#   CASES=100       cases in the mock dataset
#   PYTHON=python3  interpreter for the venv (the venv gets `pip install ghostlab==0.4.0`)
#   SERVER_JS=...   server-everything entry point (default tools/npm/node_modules/...)
#
# Everything is written under one `mktemp -d` folder (kept; its path is printed at the end):
# results.md (the table), env.txt, samples/<task> ("wall_s exit cpu_s" per round), logs/.
# Needs: node, bash, a Python >= 3.11 with venv, PyPI for the one `pip install`, bubblewrap for
# the sandboxed Rust discover row, optionally strace (fsync counts).
# Every round is one fresh process timed by timer.py (wall clock around the child, plus the
# user+sys CPU of the child and its reaped descendants); one untimed warm-up precedes each task.
# Helpers: gen_cases.py (the same cases for both sides), py_rollouts.py (Python rollout.html).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
RUST_BIN=${1:-${GHOSTLAB_BIN:-$REPO/target/debug/ghostlab}}
RUST_BIN=$(cd "$(dirname "$RUST_BIN")" && pwd)/$(basename "$RUST_BIN")
ROUNDS=${ROUNDS:-5}
HELP_ROUNDS=${HELP_ROUNDS:-10}
CASES=${CASES:-100}
PYTHON=${PYTHON:-python3}
SERVER_JS=${SERVER_JS:-$REPO/tools/npm/node_modules/@modelcontextprotocol/server-everything/dist/index.js}

[ -x "$RUST_BIN" ] || { echo "no Rust binary at $RUST_BIN" >&2; exit 2; }
[ -f "$SERVER_JS" ] || { echo "no server-everything at $SERVER_JS" >&2; exit 2; }

WORK=$(mktemp -d "${TMPDIR:-/tmp}/ghostlab-vs-python.XXXXXX")
SAMPLES=$WORK/samples
LOGS=$WORK/logs
mkdir -p "$SAMPLES" "$LOGS" "$WORK/rust" "$WORK/py"
cd "$WORK"
# Neither side may pick up a caller's database or job from the environment.
unset GHOSTLAB_DB GHOSTLAB_LLM_BACKEND || true

T0=$(date +%s)
log() { printf '[%s] %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }

# time_once KEY LOG cmd... : run once (stdin /dev/null), append "wall_s rc cpu_s" to $SAMPLES/KEY
time_once() {
  local key=$1 logf=$2; shift 2
  "$PYTHON" "$HERE/timer.py" "$SAMPLES/$key" "$logf" "$@"
}

# ---------------------------------------------------------------- Python venv + ghostlab 0.4.0
log "venv + pip install ghostlab==0.4.0 (fresh venv in $WORK/venv, nothing else installed)"
"$PYTHON" -m venv "$WORK/venv"
s=$(date +%s)
"$WORK/venv/bin/pip" install -q --disable-pip-version-check ghostlab==0.4.0 >"$LOGS/pip.log" 2>&1 \
  || { cat "$LOGS/pip.log" >&2; echo "pip install ghostlab==0.4.0 failed" >&2; exit 3; }
PIP_S=$(( $(date +%s) - s ))
PY_GL=$WORK/venv/bin/ghostlab
PY_VER=$("$WORK/venv/bin/python" -c 'import importlib.metadata as m; print(m.version("ghostlab"))')
[ "$PY_VER" = "0.4.0" ] || { echo "installed ghostlab is $PY_VER, not 0.4.0" >&2; exit 3; }
"$WORK/venv/bin/pip" list --format=freeze --disable-pip-version-check >"$LOGS/pip-freeze.txt" 2>/dev/null

# ---------------------------------------------------------------- fixtures
# MCP: one `mcpServers` file for Python, an MCP-only job (from `ghostlab init`) for Rust.
cat >"$WORK/py/mcp.json" <<EOF
{"mcpServers": {"everything": {"command": "node", "args": ["$SERVER_JS"]}}}
EOF
"$PY_GL" init --target "$WORK/py/mcp.json" --out "$WORK/py/discover-spec/ghostlab.yaml" >"$LOGS/py-init.log" 2>&1
mkdir -p "$WORK/rust/discover-bwrap" "$WORK/rust/discover-local"
"$RUST_BIN" init --target "node $SERVER_JS" --out "$WORK/rust/discover-bwrap/job.yaml" >"$LOGS/rust-init.log" 2>&1
sed 's/^  backend: bubblewrap$/  backend: local/' "$WORK/rust/discover-bwrap/job.yaml" >"$WORK/rust/discover-local/job.yaml"
grep -q 'backend: local' "$WORK/rust/discover-local/job.yaml" || { echo "could not derive the local-sandbox job" >&2; exit 4; }

# Mock dataset: the same CASES cases (4 personas, max_turns 3) for both sides.
mkdir -p "$WORK/rust/mock"
cp "$HERE/../mock-job.yaml" "$WORK/rust/mock/job.yaml"
"$PYTHON" "$HERE/gen_cases.py" "$CASES" "$WORK/rust/mock/.ghostlab" "$WORK/py/dataset"

# ---------------------------------------------------------------- 1. cold start
log "1. --help x $HELP_ROUNDS"
"$RUST_BIN" --help >/dev/null 2>&1 || true; "$PY_GL" --help >/dev/null 2>&1 || true   # warm-up
for i in $(seq 1 "$HELP_ROUNDS"); do
  time_once rust_help "$LOGS/rust-help.log" "$RUST_BIN" --help
  time_once py_help "$LOGS/py-help.log" "$PY_GL" --help
done

# ---------------------------------------------------------------- 2. MCP discovery
log "2. inspect / discover server-everything x $ROUNDS"
"$RUST_BIN" inspect --json --stdio node "$SERVER_JS" >"$LOGS/rust-inspect-warm.json" 2>/dev/null || true
"$PY_GL" inspect --target "$WORK/py/mcp.json" --output-dir "$WORK/py/inspect-warm" --db "$WORK/py/inspect-warm.sqlite3" >/dev/null 2>&1 || true
for i in $(seq 1 "$ROUNDS"); do
  time_once rust_inspect "$LOGS/rust-inspect.json" "$RUST_BIN" inspect --json --stdio node "$SERVER_JS"
  time_once py_inspect "$LOGS/py-inspect.log" "$PY_GL" inspect --target "$WORK/py/mcp.json" \
    --output-dir "$WORK/py/inspect-r$i" --db "$WORK/py/inspect-r$i.sqlite3"
done
"$RUST_BIN" discover --job "$WORK/rust/discover-bwrap/job.yaml" >/dev/null 2>&1 || true
"$RUST_BIN" discover --job "$WORK/rust/discover-local/job.yaml" >/dev/null 2>&1 || true
for i in $(seq 0 "$ROUNDS"); do
  # Python's discover rewrites its spec and versions it in its database: a fresh copy per round.
  rm -rf "$WORK/py/discover-r$i"; cp -r "$WORK/py/discover-spec" "$WORK/py/discover-r$i"
done
"$PY_GL" discover --spec "$WORK/py/discover-r0/ghostlab.yaml" --sandbox local --db "$WORK/py/discover-r0/db.sqlite3" >/dev/null 2>&1 || true
for i in $(seq 1 "$ROUNDS"); do
  time_once rust_discover_bwrap "$LOGS/rust-discover-bwrap.log" "$RUST_BIN" discover --job "$WORK/rust/discover-bwrap/job.yaml"
  time_once rust_discover_local "$LOGS/rust-discover-local.log" "$RUST_BIN" discover --job "$WORK/rust/discover-local/job.yaml"
  time_once py_discover_local "$LOGS/py-discover-local.log" "$PY_GL" discover \
    --spec "$WORK/py/discover-r$i/ghostlab.yaml" --sandbox local --db "$WORK/py/discover-r$i/db.sqlite3"
done
# Python's default discover sandbox is OpenShell: one attempt, to record what happens here.
rm -rf "$WORK/py/discover-openshell"; cp -r "$WORK/py/discover-spec" "$WORK/py/discover-openshell"
set +e
"$PY_GL" discover --spec "$WORK/py/discover-openshell/ghostlab.yaml" --db "$WORK/py/discover-openshell/db.sqlite3" >"$LOGS/py-discover-openshell.log" 2>&1
PY_OPENSHELL_RC=$?
set -e

# ---------------------------------------------------------------- 3. mock dataset
log "3. mock dataset of $CASES cases x $ROUNDS"
"$RUST_BIN" test --job "$WORK/rust/mock/job.yaml" --parallel 1 -q --run "$WORK/rust/mock-runs/warm" >/dev/null 2>&1 || true
"$PY_GL" run-dataset --dataset "$WORK/py/dataset" --target "$WORK/py/mcp.json" --sandbox local --approved-only \
  --output-dir "$WORK/py/runs-warm" --db "$WORK/py/runs-warm.sqlite3" >/dev/null 2>&1 || true
for i in $(seq 1 "$ROUNDS"); do
  time_once rust_mock "$LOGS/rust-test.log" "$RUST_BIN" test --job "$WORK/rust/mock/job.yaml" \
    --parallel 1 -q --run "$WORK/rust/mock-runs/r$i"
  time_once py_mock "$LOGS/py-run-dataset.log" "$PY_GL" run-dataset --dataset "$WORK/py/dataset" \
    --target "$WORK/py/mcp.json" --sandbox local --approved-only \
    --output-dir "$WORK/py/runs-r$i" --db "$WORK/py/runs-r$i.sqlite3"
done
RUST_RUN=$WORK/rust/mock-runs/r1
PY_SUMMARY=$(ls -d "$WORK"/py/runs-r1/*-summary | head -1)

# ---------------------------------------------------------------- 4. reports
log "4. reports of the round-1 runs x $ROUNDS"
"$RUST_BIN" report --job "$WORK/rust/mock/job.yaml" --run "$RUST_RUN" >/dev/null 2>&1 || true
"$WORK/venv/bin/python" "$HERE/py_rollouts.py" "$PY_SUMMARY" >/dev/null 2>&1 || true
for i in $(seq 1 "$ROUNDS"); do
  time_once rust_report "$LOGS/rust-report.log" "$RUST_BIN" report --job "$WORK/rust/mock/job.yaml" --run "$RUST_RUN"
  time_once rust_report_nopdf "$LOGS/rust-report-nopdf.log" "$RUST_BIN" report --job "$WORK/rust/mock/job.yaml" \
    --run "$RUST_RUN" --md "$WORK/rust/report-r$i.md" --html "$WORK/rust/report-r$i.html"
  time_once py_scorecard "$LOGS/py-scorecard.log" "$PY_GL" scorecard --results "$PY_SUMMARY" --output-dir "$WORK/py/scorecard-r$i"
  time_once py_rollouts "$LOGS/py-rollouts.log" "$WORK/venv/bin/python" "$HERE/py_rollouts.py" "$PY_SUMMARY"
done
paste -d' ' "$SAMPLES/py_scorecard" "$SAMPLES/py_rollouts" \
  | awk '{ printf "%.4f %d %.4f\n", $1 + $4, ($2 > $5 ? $2 : $5), $3 + $6 }' >"$SAMPLES/py_report"

# ---------------------------------------------------------------- optional: where the wall time goes
if command -v strace >/dev/null 2>&1; then
  log "strace -f -w -c of one more mock run per side (untimed)"
  strace -f -w -c -o "$LOGS/strace-rust-test.txt" "$RUST_BIN" test --job "$WORK/rust/mock/job.yaml" \
    --parallel 1 -q --run "$WORK/rust/mock-runs/strace" >/dev/null 2>&1 || true
  strace -f -w -c -o "$LOGS/strace-py-run-dataset.txt" "$PY_GL" run-dataset --dataset "$WORK/py/dataset" \
    --target "$WORK/py/mcp.json" --sandbox local --approved-only \
    --output-dir "$WORK/py/runs-strace" --db "$WORK/py/runs-strace.sqlite3" >/dev/null 2>&1 || true
fi

# ---------------------------------------------------------------- results
{
  echo "RUST_BIN=$RUST_BIN"
  echo "RUST_BIN_SIZE=$(stat -c %s "$RUST_BIN")"
  echo "RUST_BIN_FILE=$(file -b "$RUST_BIN" 2>/dev/null | cut -c1-160)"
  echo "REPO_HEAD=$(git -C "$REPO" rev-parse --short HEAD 2>/dev/null || echo '?')"
  echo "PY_VERSION=$("$WORK/venv/bin/python" --version 2>&1)"
  echo "PY_GHOSTLAB=$PY_VER"
  echo "PIP_INSTALL_S=$PIP_S"
  echo "NODE=$(node --version)"
  echo "NPROC=$(nproc)"
  echo "UNAME=$(uname -srm)"
  echo "LOADAVG_END=$(cut -d' ' -f1-3 /proc/loadavg)"
  echo "TOTAL_S=$(( $(date +%s) - T0 ))"
  echo "CASES=$CASES ROUNDS=$ROUNDS HELP_ROUNDS=$HELP_ROUNDS"
  echo "PY_OPENSHELL_DISCOVER_RC=$PY_OPENSHELL_RC"
  echo "PY_OPENSHELL_DISCOVER_OUT=$(tr '\n' ' ' <"$LOGS/py-discover-openshell.log" | cut -c1-400)"
  echo "RUST_TEST_LAST_OUT=$(head -c 300 "$LOGS/rust-test.log" | tr '\n' ' ')"
  echo "PY_RUN_DATASET_LAST_LINE=$(tail -n 1 "$LOGS/py-run-dataset.log")"
  echo "PY_ROLLOUTS_OUT=$(cat "$LOGS/py-rollouts.log" | tr '\n' ' ')"
  echo "RUST_REPORT_FILES=$(cd "$RUST_RUN" && ls report.* | tr '\n' ' ')"
  echo "RUST_TURNS_CASE0=$(grep -c '"type":"agent_message"' "$RUST_RUN"/cases/*task-000/trial-1/events.jsonl)"
  echo "PY_TURNS_CASE0=$(grep -c '"type": "aut_result"' "$(ls -d "$WORK"/py/runs-r1/*task-000)/events.jsonl")"
  for f in strace-rust-test strace-py-run-dataset; do
    [ -f "$LOGS/$f.txt" ] && echo "FSYNC_${f}=$(awk '$NF == "fsync" || $NF == "fdatasync" { n += $4; t += $2 } END { printf "%d calls, %.3f s\n", n, t }' "$LOGS/$f.txt")"
  done
} >"$WORK/env.txt"

"$PYTHON" - "$SAMPLES" "$CASES" "$WORK/env.txt" >"$WORK/results.md" <<'EOF'
import statistics, sys
from pathlib import Path
samples, cases = Path(sys.argv[1]), int(sys.argv[2])

def load(key):
    lines = [l.split() for l in (samples / key).read_text().split("\n") if l.strip()]
    secs = [float(r[0]) for r in lines]
    rcs = sorted({int(r[1]) for r in lines})
    cpu = statistics.median(float(r[2]) for r in lines)
    return statistics.median(secs), min(secs), max(secs), len(secs), rcs, cpu

CPU = {}
def cell(key):
    med, lo, hi, n, rcs, cpu = load(key)
    CPU[key] = cpu
    return f"{med:.3f} s ({lo:.3f}–{hi:.3f}, n={n}, exit {'/'.join(map(str, rcs))}; CPU {cpu:.3f} s)", med

rows = [
    ("1. `ghostlab --help` (cold start)", "rust_help", "py_help", None),
    ("2a. inspect server-everything (stdio, on the host)", "rust_inspect", "py_inspect", "cpu-partial"),
    ("2b. discover, MCP-only job, server on the host (`sandbox: local`)", "rust_discover_local", "py_discover_local", None),
    ("2c. discover, Rust server in bubblewrap vs Python on the host", "rust_discover_bwrap", "py_discover_local", "cpu-partial"),
    (f"3. mock dataset, {cases} cases × 3 turns, sequential (Rust `test` includes its run report)", "rust_mock", "py_mock", "rate"),
    ("4a. run report: Rust md+html+pdf vs Python scorecard + 100 rollout.html", "rust_report", "py_report", None),
    ("4b. run report: Rust md+html (no PDF) vs Python scorecard + 100 rollout.html", "rust_report_nopdf", "py_report", None),
]
# cpu-partial: the Rust CPU figure misses the node server (not reaped inside the measured process
# tree: killed without a wait, or reaped inside bubblewrap's PID namespace), so no CPU ratio.
print("| task | Rust median | Python median | ratio Rust/Python |")
print("| --- | --- | --- | --- |")
for name, r, p, extra in rows:
    rc, rm = cell(r); pc, pm = cell(p)
    if extra == "rate":
        rc += f" = {cases / rm:.1f} runs/s"; pc += f" = {cases / pm:.1f} runs/s"
    cpu = "CPU n/c" if extra == "cpu-partial" else f"CPU {CPU[r] / CPU[p]:.2f}"
    print(f"| {name} | {rc} | {pc} | {rm / pm:.2f} ({cpu}) |")
a, _ = cell("py_scorecard"); b, _ = cell("py_rollouts")
print(f"| 4c. (Python parts of 4a/4b) `scorecard` / rollout.html ×100 | – | {a} / {b} | – |")
# `test` writes the Markdown and HTML report (the PDF only with --pdf), so 4b is its share.
rm3 = load("rust_mock")[0] - load("rust_report_nopdf")[0]
pm3 = load("py_mock")[0]
print(f"| 3′. derived: Rust row 3 − row 4b (runs without the md+html report Rust `test` writes) "
      f"| ≈{rm3:.3f} s = {cases / rm3:.1f} runs/s | {pm3:.3f} s = {cases / pm3:.1f} runs/s | ≈{rm3 / pm3:.2f} |")
print()
print("```")
print(Path(sys.argv[3]).read_text().rstrip())
print("```")
EOF

cat "$WORK/results.md"
log "done in $(( $(date +%s) - T0 )) s; everything is in $WORK (results.md, env.txt, samples/, logs/)"
