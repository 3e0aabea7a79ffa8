#!/usr/bin/env python3
"""Run one command once; append "wall_s rc cpu_s" to a samples file.

usage: timer.py SAMPLES_FILE LOG_FILE CMD [ARG...]

wall_s: time.perf_counter() around the child only (this interpreter's own start-up is not
counted). cpu_s: user+sys CPU of the child and every descendant it waited for
(getrusage(RUSAGE_CHILDREN) delta), so an MCP server the CLI started and reaped counts.
"""
import resource
import subprocess
import sys
import time

samples, log, cmd = sys.argv[1], sys.argv[2], sys.argv[3:]
before = resource.getrusage(resource.RUSAGE_CHILDREN)
with open(log, "wb") as out:
    start = time.perf_counter()
    rc = subprocess.call(cmd, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    wall = time.perf_counter() - start
after = resource.getrusage(resource.RUSAGE_CHILDREN)
cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
with open(samples, "a") as f:
    f.write(f"{wall:.4f} {rc} {cpu:.4f}\n")
