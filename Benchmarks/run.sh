#!/usr/bin/env bash
# Release-build benchmarks. Usage: bash Benchmarks/run.sh [store|scheduler|idle|all]
# Figures are printed; README.md "Performance" records them with the machine they ran on.
set -euo pipefail
cd "$(dirname "$0")/.."
what=${1:-all}
# SCRATCH_PATH: a separate build directory (so a benchmark build does not hold .build's lock).
scratch=${SCRATCH_PATH:-.build}
release() { [ -n "${NO_BUILD:-}" ] && return 0; swift build -c release --scratch-path "$scratch" "$@" >/dev/null; }
bin=$scratch/release
echo "machine: $(lscpu | sed -n 's/^Model name: *//p' | head -1), $(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GiB"

run_store() {
  release --product netvigil
  release --product StoreBenchmarks
  local db; db=$(mktemp -d)/bench.sqlite
  "$bin/StoreBenchmarks" --db "$db" --rows 1000000 --batch 5000
  for format in json ndjson; do
    python3 - "$bin/netvigil" "$db" "$format" <<'PY'
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

# nginx on a loopback port answering 204 at /, in a temporary prefix; prints the port.
start_nginx() {
  local prefix=$1 port=$2
  mkdir -p "$prefix/logs"
  cat > "$prefix/nginx.conf" <<CONF
daemon on;
pid $prefix/nginx.pid;
error_log $prefix/logs/error.log;
worker_processes 1;
worker_rlimit_nofile 8192;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path $prefix/body; proxy_temp_path $prefix/proxy; fastcgi_temp_path $prefix/fastcgi;
  uwsgi_temp_path $prefix/uwsgi; scgi_temp_path $prefix/scgi;
  server { listen 127.0.0.1:$port; location / { return 204; } }
}
CONF
  /usr/sbin/nginx -p "$prefix" -c "$prefix/nginx.conf"
}

# 1,000 targets every 10 s against loopback nginx for 5 minutes (SCHEDULER_SECONDS to change).
run_scheduler() {
  release --product SchedulerBenchmarks
  local prefix; prefix=$(mktemp -d)
  local port=18480
  start_nginx "$prefix" "$port"
  trap 'kill $(cat '"$prefix"'/nginx.pid) 2>/dev/null; rm -rf '"$prefix" RETURN
  ulimit -n 8192 || true
  "$bin/SchedulerBenchmarks" --url "http://127.0.0.1:$port/" --targets "${SCHEDULER_TARGETS:-1000}" \
    --interval "${SCHEDULER_INTERVAL:-10s}" --seconds "${SCHEDULER_SECONDS:-300}"
}

# Idle daemon with 100 targets (60 s interval) vs prometheus-blackbox-exporter idle, measured over the same 120 s.
run_idle() {
  release --product netvigil
  if ! command -v prometheus-blackbox-exporter >/dev/null && [ "$(id -u)" = 0 ]; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends prometheus-blackbox-exporter >/dev/null
  fi
  local dir; dir=$(mktemp -d)
  local port=18481 feed=18482 bbe=18483
  start_nginx "$dir" "$port"
  {
    echo "storage: { path: $dir/state/netvigil.sqlite }"
    echo "feed: { listen: 127.0.0.1:$feed }"
    echo "log: { level: warning }"
    echo "targets:"
    for i in $(seq 0 99); do echo "  - { name: t$i, url: \"http://127.0.0.1:$port/?t=$i\", interval: 60s }"; done
  } > "$dir/netvigil.yml"
  "$bin/netvigil" run --config "$dir/netvigil.yml" 2>"$dir/daemon.log" &
  local daemon=$!
  local exporter=""
  if command -v prometheus-blackbox-exporter >/dev/null; then
    printf 'modules:\n  http_2xx:\n    prober: http\n' > "$dir/blackbox.yml"
    prometheus-blackbox-exporter --config.file="$dir/blackbox.yml" --web.listen-address="127.0.0.1:$bbe" 2>/dev/null &
    exporter=$!
  fi
  sleep 20
  python3 - "$daemon" "$exporter" <<'PY'
import os, sys, time
tick = os.sysconf("SC_CLK_TCK")
def cpu(pid): f = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split(); return (int(f[11]) + int(f[12])) / tick
def rss(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"): return int(line.split()[1]) / 1024
pids = {"netvigil (100 targets, 60 s interval)": sys.argv[1]}
if sys.argv[2]: pids["prometheus-blackbox-exporter (idle, no scrapes)"] = sys.argv[2]
before = {name: cpu(pid) for name, pid in pids.items()}
time.sleep(120)
for name, pid in pids.items():
    used = cpu(pid) - before[name]
    print(f"idle {name}: CPU {used:.2f} s in 120 s = {used / 120 * 100:.2f}% of one core, RSS {rss(pid):.1f} MB")
PY
  kill "$daemon" ${exporter:+"$exporter"} 2>/dev/null || true
  wait "$daemon" 2>/dev/null || true
  kill "$(cat "$dir/nginx.pid")" 2>/dev/null || true
  rm -rf "$dir"
}

case "$what" in
  store) run_store ;;
  scheduler) run_scheduler ;;
  idle) run_idle ;;
  all) run_store; run_scheduler; run_idle ;;
  *) echo "unknown benchmark: $what" >&2; exit 64 ;;
esac
