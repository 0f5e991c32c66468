#!/usr/bin/env bash
# Rebuilds deploy/linker/netvigil.order, the list of functions the release link places first and together (lld
# --symbol-ordering-file, Package.swift), from what representative workloads execute: callgrind runs of the release
# binary (debug info stripped: valgrind 3.19 reads no DWARF 5; the symbol table stays) against loopback nginx.
#   start-up: `netvigil version`, `netvigil probe https://127.0.0.1:P/`, `netvigil status`, and the daemon from exec
#             until MemoryRelease.afterStartup has dropped start-up's file pages (first probe round included);
#   cycle:    the daemon's probe cycles after that, nothing else (100 HTTP targets, half of them against the idle
#             benchmark's nginx (204, no body) and half against one that sends a body, plus 4 HTTPS ones);
#   occasional: then the same cycles with /metrics and /v1/status requests every 20 s.
# order_symbols.py puts the cycle's functions in one stretch, the most called in its middle.
# Usage: bash deploy/linker/generate-order.sh   (SCRATCH_PATH=.build-release NO_BUILD=1 as for Benchmarks/run.sh;
#        STARTUP_SECONDS, default 75; CYCLE_SECONDS, default 120; OCCASIONAL_SECONDS, default 60; ORDER_PORT, default
#        18620, and the three ports above it). Needs valgrind and nginx; takes about 6 minutes.
# Then relink (make release; this script removes the linked binary, as swift build does not know the list is an input
# of the link and would keep the old one): the list only moves sections, so a stale name costs nothing but its place.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
# run.sh's helpers (release, start_loopback_tls) without running a benchmark. Its first lines cd relative to $0,
# which here is this script, so come back to the project's root after.
source <(sed -n '1,/^case /p' Benchmarks/run.sh | head -n -1)
cd "$root"
command -v valgrind >/dev/null || { echo "generate-order.sh needs valgrind (apt-get install valgrind)"; exit 1; }
release --product netvigil
port=${ORDER_PORT:-18620}; plain=$((port + 1)); feed=$((port + 2)); empty=$((port + 3))
start_loopback_tls "$port" "$plain"
dir=$TLS_DIR
mkdir -p "$dir/empty" && start_nginx "$dir/empty" "$empty"
# Instead of probe_workdir's EXIT trap: stops both nginx and removes $dir.
trap 'kill "$(cat "$dir/empty/nginx.pid")" 2>/dev/null || true; kill "$(cat "$dir/nginx.pid")" 2>/dev/null || true; rm -rf "$dir"' EXIT
profiled=$dir/netvigil
objcopy --strip-debug "$bin/netvigil" "$profiled"
callgrind() {
  local name=$1; shift
  valgrind --tool=callgrind --demangle=no --callgrind-out-file="$dir/$name.out" "$@"
}

callgrind version "$profiled" version >/dev/null 2>"$dir/version.log"
callgrind probe "$profiled" probe --ca "$dir/ca.pem" --no-system-roots "https://127.0.0.1:$port/" >/dev/null 2>"$dir/probe.log"

{
  echo "storage: { path: $dir/state/netvigil.sqlite }"
  echo "feed: { listen: 127.0.0.1:$feed }"
  echo "log: { level: warning }"
  echo "targets:"
  for i in $(seq 0 99); do
    echo "  - { name: t$i, url: \"http://127.0.0.1:$(( i < 50 ? plain : empty ))/?t=$i\", interval: 60s }"
  done
  for i in $(seq 0 3); do
    echo "  - { name: tls$i, url: \"https://127.0.0.1:$port/?t=$i\", interval: 60s, tls: { ca: [$dir/ca.pem] } }"
  done
} > "$dir/netvigil.yml"
"$profiled" check-config "$dir/netvigil.yml" >/dev/null
# valgrind itself in the background (not through the function), so $! is its pid for callgrind_control.
valgrind --tool=callgrind --demangle=no --callgrind-out-file="$dir/daemon.out" "$profiled" run --config "$dir/netvigil.yml" \
  2>"$dir/daemon.log" &
daemon=$!
# Start-up ends when MemoryRelease.afterStartup drops the file pages: the first round's spread (60 s here) + 5 s.
for _ in $(seq 120); do curl -sf -o /dev/null "http://127.0.0.1:$feed/healthz" && break; sleep 1; done
sleep "${STARTUP_SECONDS:-75}"
callgrind_control --dump=startup "$daemon" >/dev/null
sleep "${CYCLE_SECONDS:-120}"
callgrind_control --dump=cycle "$daemon" >/dev/null
# `netvigil status` asks the daemon's feed: in the occasional window, not the cycle's.
callgrind status "$profiled" status --feed "http://127.0.0.1:$feed" >/dev/null 2>"$dir/status.log" || true
end=$((SECONDS + ${OCCASIONAL_SECONDS:-60}))
while [ "$SECONDS" -lt "$end" ]; do
  curl -sf -o /dev/null "http://127.0.0.1:$feed/metrics" || true
  curl -sf -o /dev/null "http://127.0.0.1:$feed/v1/status" || true
  sleep 20
done
callgrind_control --dump=occasional "$daemon" >/dev/null
kill -INT "$daemon"; wait "$daemon" || true
# Each dump is its own file (daemon.out.1: exec to the page drop, daemon.out.2: the cycles alone, daemon.out.3: the
# cycles with feed requests); the shutdown (daemon.out) is left out. The profiles stay in $scratch/symbol-order.
python3 deploy/linker/order_symbols.py "$profiled" deploy/linker/netvigil.order \
  "$dir/version.out" "$dir/probe.out" "$dir/status.out" "$dir/daemon.out.1" -- "$dir/daemon.out.2" -- "$dir/daemon.out.3"
rm -rf "$scratch/symbol-order" && mkdir -p "$scratch/symbol-order"
cp "$dir"/*.out* "$dir"/*.log "$scratch/symbol-order"/
# swift build relinks only a missing or outdated product; the list is not one of its inputs.
rm -f "$bin/netvigil"
echo "removed $bin/netvigil: relink with make release (or run.sh) to place the functions in the new order"
