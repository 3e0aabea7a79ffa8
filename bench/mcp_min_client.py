#!/usr/bin/env python3
"""The baseline for bench/mcp_discovery.py: the least a client can do over stdio.

Starts the server, sends initialize, the initialized notification and tools/list, reads the
tools/list answer, then kills the server. No validation, no timeouts, no stderr handling.
"""
import json
import subprocess
import sys
import time


def main() -> int:
    start = time.perf_counter()
    proc = subprocess.Popen(sys.argv[1:], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True, bufsize=1)

    def send(msg):
        proc.stdin.write(json.dumps(msg) + "\n")
        proc.stdin.flush()

    def answer(want_id):
        for line in proc.stdout:
            try:
                msg = json.loads(line)
            except ValueError:
                continue
            if msg.get("id") == want_id:
                return msg
        raise SystemExit("server closed stdout")

    send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "bench-min", "version": "0"}}})
    answer(1)
    send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    send({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
    tools = answer(2)["result"]["tools"]
    elapsed_ms = (time.perf_counter() - start) * 1000
    proc.kill()
    proc.wait()
    # Tool count, then the time from spawn to the tools/list answer (interpreter start excluded).
    print(len(tools), f"{elapsed_ms:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
