#!/usr/bin/env python3
"""Benchmark: Ghostlab's MCP discovery of server-everything over stdio, as a ratio to the bare
time a minimal client (bench/mcp_min_client.py: initialize + tools/list) takes, in one run.

Usage: python3 bench/mcp_discovery.py [--rounds N] [--bin target/debug/ghostlab] [--out FILE]
Rounds interleave the three commands so machine load hits them alike; medians are compared.
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SERVER = os.path.join(ROOT, "tools/npm/node_modules/@modelcontextprotocol/server-everything/dist/index.js")


def timed(cmd, **kw):
    start = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, **kw)
    return time.perf_counter() - start


def timed_minimal(cmd):
    """Wall time of the minimal client, and its own spawn-to-answer time (no interpreter start)."""
    start = time.perf_counter()
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout.split()
    return time.perf_counter() - start, float(out[1]) / 1000


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--bin", default=os.path.join(ROOT, "target/debug/ghostlab"))
    ap.add_argument("--out", default=os.path.join(ROOT, "docs/benchmarks-mcp.md"))
    args = ap.parse_args()
    if not os.path.exists(SERVER):
        print(f"SKIPPED: {SERVER} is not installed", file=sys.stderr)
        return 0
    work = tempfile.mkdtemp(prefix="ghostlab-bench-")
    job = os.path.join(work, "job.yaml")
    with open(job, "w") as f:
        f.write("version: 1\nagent:\n  id: bench\n  inputs:\n    mcps:\n"
                f"      - server: everything\n        command: [node, \"{SERVER}\"]\n")
    minimal = [sys.executable, os.path.join(ROOT, "bench/mcp_min_client.py"), "node", SERVER]
    inspect = [args.bin, "inspect", "--json", "--stdio", "node", SERVER]
    discover = [args.bin, "discover", "--job", job]
    # One warm-up each (node module cache, page cache).
    for cmd in (minimal, inspect, discover):
        timed(cmd)
    times = {"minimal": [], "minimal-in-process": [], "inspect": [], "discover": []}
    for _ in range(args.rounds):
        wall, inner = timed_minimal(minimal)
        times["minimal"].append(wall)
        times["minimal-in-process"].append(inner)
        times["inspect"].append(timed(inspect))
        times["discover"].append(timed(discover))
    med = {k: statistics.median(v) for k, v in times.items()}
    rows = []
    for k in ("minimal", "minimal-in-process", "inspect", "discover"):
        v = times[k]
        rows.append(f"| {k} | {med[k]*1000:.0f} | {min(v)*1000:.0f} | {max(v)*1000:.0f} | {med[k]/med['minimal']:.2f} |")
    cmdline = "python3 bench/mcp_discovery.py --rounds %d --bin %s" % (args.rounds, os.path.relpath(args.bin, ROOT))
    text = f"""# Benchmark: MCP discovery (server-everything 2026.8.31, stdio)

Command: `{cmdline}` (one run; rounds interleave the three commands; medians compared).

- **minimal**: `bench/mcp_min_client.py` — spawn, initialize, tools/list, kill; nothing else
  (wall time, Python start included).
- **minimal-in-process**: the same client's own spawn → tools/list-answer time (no interpreter
  start): the bare time the server needs.
- **inspect**: `ghostlab inspect --json --stdio node …/server-everything/dist/index.js` —
  initialize with timeout, tools + resources + resource templates + prompts, stderr drained,
  process group killed.
- **discover**: `ghostlab discover --job job.yaml` with that one server — the same lists, plus
  job loading, inventory.json, contract.json and the job.yaml refresh.

| command | median ms | min ms | max ms | ratio to minimal |
| --- | --- | --- | --- | --- |
{chr(10).join(rows)}

Ratio of discover to the minimal client: **{med['discover']/med['minimal']:.2f}×** wall time;
**{med['discover']/med['minimal-in-process']:.2f}×** the server's bare initialize + tools/list time
(that ratio charges Ghostlab for its whole process: start, job loading, four lists, files written).
{args.rounds} rounds, binary `{os.path.relpath(args.bin, ROOT)}` (debug profile), {os.cpu_count()} CPUs shared
with other builds, load average at the end {os.getloadavg()[0]:.1f}. Node's start-up of the server
dominates every row.
"""
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    tmp = args.out + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, args.out)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
