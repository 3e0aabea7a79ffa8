#!/usr/bin/env bash
# Checks that the README's two quick-start commands work exactly as written, from a clean
# clone in a temporary directory: ./scripts/quickstart.sh, then ./scripts/test.sh.
# Usage: scripts/check-readme.sh [REPO]   (default: this checkout's committed HEAD)
set -euo pipefail
src="${1:-$(cd "$(dirname "$0")/.." && pwd)}"
work="$(mktemp -d -t ghostlab-readme-XXXXXX)"
chmod 755 "$work"   # mktemp makes it 0700; the sandbox user must reach the checkout's inputs
trap 'echo "clone kept in $work"' EXIT
git clone --quiet "$src" "$work/ghostlab"
cd "$work/ghostlab"
# The two commands, verbatim from the README's quick start.
grep -q '^./scripts/quickstart.sh' README.md
grep -q '^./scripts/test.sh' README.md
./scripts/quickstart.sh
test -f .quickstart/release-bot/job.yaml
ls .quickstart/release-bot/.ghostlab/runs/*/report.pdf >/dev/null
# Offline verdicts are INCONCLUSIVE by design; an INFRA_ERROR means the machinery broke.
python3 - <<'PY'
import glob, json, sys
s = json.load(open(sorted(glob.glob(".quickstart/release-bot/.ghostlab/runs/*/summary.json"))[-1]))["summary"]
print(f"quickstart run: {s['trials']} trials, {s['pass']} PASS, {s['inconclusive']} INCONCLUSIVE, {s['infra_error']} INFRA_ERROR")
sys.exit(1 if s["infra_error"] or not s["trials"] else 0)
PY
./scripts/test.sh
echo "README quick start: OK"
