#!/usr/bin/env bash
# Soak test (not in CI): the release daemon under mixed load for SOAK_MINUTES (default 30) minutes.
#   Four 1xx-flood targets (two HTTP/1.1, two HTTP/2 over TLS; every 10 s, 10 s timeout) answer 200 for the first third
#   and an endless stream of 103 Early Hints after it: the daemon's CPU and the healthy targets' p50/p99 per minute compare the two phases.
#   40 healthy targets (nginx, every 2 s) and hostile ones: a server that never answers, a closed port, a server that
#   redirects with a 60 KB Location; feed clients: SSE subscribe/abort churn, 50 SSE streams never read, slow
#   /v1/export readers (1 KB/s), and a burst of 300 idle connections every 5 minutes.
# Prints RSS (and its anonymous part: the rest is the binary and the mmap-ed database), open descriptors, WAL size and probe lateness every minute, then least-squares slopes per hour.
# Usage: bash Benchmarks/soak.sh   (NO_BUILD=1 to reuse $SCRATCH_PATH/release/netvigil; SOAK_MINUTES=N)
set -euo pipefail
cd "$(dirname "$0")/.."
scratch=${SCRATCH_PATH:-.build}
[ -n "${NO_BUILD:-}" ] || swift build -c release --scratch-path "$scratch" --product netvigil >/dev/null
echo "machine: $(lscpu | sed -n 's/^Model name: *//p' | head -1), $(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GiB; $(date -u +%Y-%m-%d) $(git rev-parse --short HEAD)"
exec python3 Benchmarks/soak.py "$scratch/release/netvigil" "${SOAK_MINUTES:-30}"
