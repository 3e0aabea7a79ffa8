#!/usr/bin/env python3
"""Python ghostlab 0.4.0 rollout documents for every run of one run-dataset summary.

usage: py_rollouts.py SUMMARY_DIR

`ghostlab run-dataset` writes report.md per case but no rollout.html; the only CLI path
to rollout.html is `ghostlab test --pdf` on a job (the job flow, OpenShell by default).
This calls the same function that flow calls, rehearsal.rollout_report.write_rollout,
once per case run listed in SUMMARY_DIR/results.json (HTML; PDF attempted, which needs
Playwright + Chrome and fails without them: the error is printed once).
"""
import json
import sys
from pathlib import Path

from rehearsal.rollout_report import write_rollout

summary = Path(sys.argv[1])
results = json.loads((summary / "results.json").read_text(encoding="utf-8"))["results"]
html = 0
pdf = 0
pdf_error = None
for row in results:
    paths = write_rollout(Path(row["run_dir"]), title=f"bench · {row['case']}")
    html += "html" in paths
    pdf += "pdf" in paths
    if "pdf_error" in paths and pdf_error is None:
        pdf_error = paths["pdf_error"]
print(f"rollout.html: {html}, rollout.pdf: {pdf}, pdf error: {pdf_error}")
