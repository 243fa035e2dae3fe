#!/usr/bin/env python3
"""Counts the tasks of every `func.func @streamN` of a lowered model (one task per line) and
fails when a stream holds more than `--max` tasks. Prints `streams=<n> max=<m>`."""
import argparse
import re
import sys

parser = argparse.ArgumentParser()
parser.add_argument("--max", type=int, required=True)
parser.add_argument("--min-streams", type=int, default=1)
args = parser.parse_args()

counts = {}
current = None
for line in sys.stdin:
    m = re.match(r"\s*func\.func @stream(\d+)\(", line)
    if m:
        current = int(m.group(1))
        counts[current] = 0
        continue
    if current is not None:
        if line.strip().startswith("return") or line.strip() == "}":
            current = None
        elif '"ascend_task.' in line:
            counts[current] += 1
over = {s: c for s, c in counts.items() if c > args.max}
print(f"streams={len(counts)} max={max(counts.values(), default=0)}")
if over or len(counts) < args.min_streams:
    print(f"over the limit of {args.max}: {over}; streams: {counts}", file=sys.stderr)
    sys.exit(1)
