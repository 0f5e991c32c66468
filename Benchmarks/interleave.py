#!/usr/bin/env python3
"""Fresh-process A/B with the runs interleaved: each iteration starts every command once, in a shuffled order.

hyperfine runs all of one command's runs before the next command's, so a VM whose speed drifts over a minute moves one
side more than the other; here every command sees the same drift. Times include Python's fork and exec (~2-3 ms),
the same for each command, so compare the commands with each other, not with hyperfine's figures.

Usage: python3 Benchmarks/interleave.py ITERATIONS NAME=COMMAND... (the first command is the ratios' base)
  e.g. python3 Benchmarks/interleave.py 300 "curl=curl -s -o /dev/null --cacert ca.pem https://127.0.0.1:18700/" \
         "old=old/netvigil probe --ca ca.pem --no-system-roots https://127.0.0.1:18700/" "new=..."
"""
import os
import random
import statistics
import subprocess
import sys
import time

if len(sys.argv) < 3 or not sys.argv[1].isdigit() or any("=" not in arg for arg in sys.argv[2:]):
    sys.exit(next(line for line in __doc__.splitlines() if line.startswith("Usage:")))
commands = dict(arg.split("=", 1) for arg in sys.argv[2:])
times = {name: [] for name in commands}
with open(os.devnull, "w") as devnull:
    for _ in range(int(sys.argv[1])):
        order = list(commands)
        random.shuffle(order)
        for name in order:
            start = time.perf_counter()
            subprocess.run(commands[name].split(), stdout=devnull, stderr=devnull, check=False)
            times[name].append((time.perf_counter() - start) * 1000)
base = statistics.median(next(iter(times.values())))
for name, values in times.items():
    low, _, high = statistics.quantiles(values, n=4)
    print(f"{name}: median {statistics.median(values):.2f} ms (IQR {low:.2f}-{high:.2f}), ratio {statistics.median(values) / base:.2f}")
