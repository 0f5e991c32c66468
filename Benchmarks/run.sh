#!/usr/bin/env bash
# Release-build benchmarks. Usage: bash Benchmarks/run.sh [store|trust|reachability|all]
# Figures are printed; README.md "Performance" records them with the machine they ran on.
set -euo pipefail
cd "$(dirname "$0")/.."
what=${1:-all}
echo "machine: $(lscpu | sed -n 's/^Model name: *//p' | head -1), $(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GiB"

run_store() {
  swift build -c release --product netvigil >/dev/null
  swift build -c release --product StoreBenchmarks >/dev/null
  local db; db=$(mktemp -d)/bench.sqlite
  .build/release/StoreBenchmarks --db "$db" --rows 1000000 --batch 5000
  for format in json ndjson; do
    python3 - ".build/release/netvigil" "$db" "$format" <<'PY'
import resource, subprocess, sys, time
binary, db, fmt = sys.argv[1:4]
start = time.monotonic()
subprocess.run([binary, "export", "--db", db, "--format", fmt, "--output", "/dev/null"], check=True)
elapsed = time.monotonic() - start
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
print(f"export {fmt}: 1000000 probe rows (3+3 certificates each, inlined) in {elapsed:.2f} s = {1000000/elapsed:,.0f} rows/s, "
      f"CPU {usage.ru_utime + usage.ru_stime:.2f} s, peak RSS {usage.ru_maxrss / 1024:.1f} MB")
PY
  done
  rm -rf "$(dirname "$db")"
}

case "$what" in
  store) run_store ;;
  all) run_store ;;
  *) echo "unknown benchmark: $what" >&2; exit 64 ;;
esac
