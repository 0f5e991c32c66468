#!/usr/bin/env bash
# Release-build benchmarks. Usage: bash Benchmarks/run.sh [store|overview|scheduler|idle|probe|probe-tls|probe-trust|probe-h2|startup|scale|status|reload|fleet|fleet-view|all]
# Figures are printed; docs/performance.md records the current ones with the command, the machine and the date.
set -euo pipefail
cd "$(dirname "$0")/.."
what=${1:-all}
# SCRATCH_PATH: a separate build directory (so a benchmark build does not hold .build's lock).
scratch=${SCRATCH_PATH:-.build}
# The flags of `make release`/`make deb` (the Makefile's RELEASE_FLAGS): the benchmarks measure the binary that ships.
release() {
  [ -n "${NO_BUILD:-}" ] && return 0
  # shellcheck disable=SC2046 # the flags are words
  swift build $(make -s --no-print-directory release-flags) --scratch-path "$scratch" "$@" >/dev/null
}
bin=$scratch/release
# The daemon runs as deploy/systemd/netvigil.service starts it, with its Environment= line.
TCACHE_OFF=$(sed -n 's/^Environment=GLIBC_TUNABLES=//p' deploy/systemd/netvigil.service)
echo "machine: $(lscpu | sed -n 's/^Model name: *//p' | head -1), $(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GiB"

run_store() {
  release --product netvigil
  release --product StoreBenchmarks
  local db; db=$(mktemp -d)/bench.sqlite
  # The machine may be shared: the load average goes with the figures.
  echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
  "$bin/StoreBenchmarks" --db "$db" --rows 1000000 --batch 5000
  # 50,000-row transactions: what StoreWriter coalesces when results arrive at 100,000/s (everything queued while a
  # commit runs goes into the next transaction).
  local large; large=$(dirname "$db")/large.sqlite
  "$bin/StoreBenchmarks" --db "$large" --rows 1000000 --batch 50000
  for format in json ndjson; do
    python3 - "$bin/netvigil" "$db" "$format" <<'PY'
import resource, subprocess, sys, time
binary, db, fmt = sys.argv[1:4]
start = time.monotonic()
subprocess.run([binary, "export", "--db", db, "--format", fmt, "--output", "/dev/null"], check=True)
elapsed = time.monotonic() - start
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
cpu = usage.ru_utime + usage.ru_stime
print(f"export {fmt}: 1000000 probe rows (3+3 certificates each, inlined) in {elapsed:.2f} s = {1000000/elapsed:,.0f} rows/s, "
      f"CPU {cpu:.2f} s = {1000000/cpu:,.0f} rows per CPU-second, peak RSS {usage.ru_maxrss / 1024:.1f} MB")
PY
  done
  echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
  rm -rf "$(dirname "$db")"
}

# The status page's overview data (GET /v1/overview, 24 h in 30 min buckets) for 1,000 targets from a 30-day,
# 10-million-row store. The store is generated once (OVERVIEW_DB keeps it between runs; a few minutes to build).
run_overview() {
  release --product OverviewBenchmarks
  local dir; dir=$(mktemp -d)
  echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
  "$bin/OverviewBenchmarks" --db "${OVERVIEW_DB:-$dir/overview.sqlite}" --targets 1000 --rows 10000000 --days 30
  echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
  rm -rf "$dir"
}

# nginx in the temporary prefix $1 with $2 worker processes serving the server blocks $3 (access log off).
run_nginx() {
  local prefix=$1 workers=$2 servers=$3
  mkdir -p "$prefix/logs"
  cat > "$prefix/nginx.conf" <<CONF
daemon on;
pid $prefix/nginx.pid;
error_log $prefix/logs/error.log;
worker_processes $workers;
worker_rlimit_nofile 8192;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path $prefix/body; proxy_temp_path $prefix/proxy; fastcgi_temp_path $prefix/fastcgi;
  uwsgi_temp_path $prefix/uwsgi; scgi_temp_path $prefix/scgi;
$servers
}
CONF
  /usr/sbin/nginx -p "$prefix" -c "$prefix/nginx.conf"
}

# Plain HTTP nginx answering 204 on 127.0.0.1:$2 (one worker).
start_nginx() {
  run_nginx "$1" 1 "  server { listen 127.0.0.1:$2; location / { return 204; } }"
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

# Idle daemon with 100 targets (60 s interval) vs prometheus-blackbox-exporter idle, measured over the same window:
# IDLE_SECONDS (default 120; 3600 for the growth check). IDLE_PORT (default 18481) and the two ports above it are
# used, so two runs can go side by side.
run_idle() {
  release --product netvigil
  if ! command -v prometheus-blackbox-exporter >/dev/null && [ "$(id -u)" = 0 ]; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends prometheus-blackbox-exporter >/dev/null
  fi
  local dir; dir=$(mktemp -d)
  local port=${IDLE_PORT:-18481}; local feed=$((port + 1)) bbe=$((port + 2))
  start_nginx "$dir" "$port"
  {
    echo "storage: { path: $dir/state/netvigil.sqlite${IDLE_RETENTION:+, retention: $IDLE_RETENTION} }"
    echo "feed: { listen: 127.0.0.1:$feed }"
    echo "log: { level: warning }"
    echo "targets:"
    for i in $(seq 0 99); do echo "  - { name: t$i, url: \"http://127.0.0.1:$port/?t=$i\", interval: 60s }"; done
  } > "$dir/netvigil.yml"
  # As the systemd unit runs it: glibc's per-thread malloc caches off.
  GLIBC_TUNABLES=$TCACHE_OFF "$bin/netvigil" run --config "$dir/netvigil.yml" 2>"$dir/daemon.log" &
  local daemon=$!
  local exporter=""
  if command -v prometheus-blackbox-exporter >/dev/null; then
    printf 'modules:\n  http_2xx:\n    prober: http\n' > "$dir/blackbox.yml"
    prometheus-blackbox-exporter --config.file="$dir/blackbox.yml" --web.listen-address="127.0.0.1:$bbe" 2>/dev/null &
    exporter=$!
  fi
  sleep 20
  # RSS (anonymous + file-backed pages) after each minute of the window, printed as it is taken: growth shows.
  python3 - "$daemon" "$exporter" "${IDLE_SECONDS:-120}" <<'PY'
import os, sys, time
tick = os.sysconf("SC_CLK_TCK")
seconds = int(sys.argv[3])
def cpu(pid): f = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split(); return (int(f[11]) + int(f[12])) / tick
def memory(pid):
    fields = {line.split(":")[0]: int(line.split()[1]) / 1024 for line in open(f"/proc/{pid}/status")
              if line.startswith(("VmRSS:", "RssAnon:", "RssFile:"))}
    return fields["VmRSS"], fields["RssAnon"], fields["RssFile"]
def pss(pid):
    return next(int(line.split()[1]) / 1024 for line in open(f"/proc/{pid}/smaps_rollup") if line.startswith("Pss:"))
pids = {"netvigil (100 targets, 60 s interval)": sys.argv[1]}
if sys.argv[2]: pids["prometheus-blackbox-exporter (idle, no scrapes)"] = sys.argv[2]
before = {name: cpu(pid) for name, pid in pids.items()}
samples = {name: [] for name in pids}
for minute in range(1, seconds // 60 + 1):
    time.sleep(60)
    for name, pid in pids.items():
        rss, anon, file = memory(pid)
        samples[name].append(rss)
        # IDLE_SMAPS_DIR: keep each minute's /proc/PID/smaps, to find which mapping grew.
        if os.environ.get("IDLE_SMAPS_DIR"):
            with open(f"/proc/{pid}/smaps") as source, \
                 open(f"{os.environ['IDLE_SMAPS_DIR']}/{name.split()[0]}-{minute:03d}.smaps", "w") as copy:
                copy.write(source.read())
        print(f"minute {minute} {name.split()[0]}: RSS {rss:.2f} MB (anonymous {anon:.2f}, file-backed {file:.2f}) "
              f"at {time.strftime('%H:%M:%S', time.gmtime())} UTC, load {open('/proc/loadavg').read().split()[0]}", flush=True)
time.sleep(seconds % 60)
for name, pid in pids.items():
    used = cpu(pid) - before[name]
    rss, anon, file = memory(pid)
    proportional = pss(pid)
    print(f"idle {name}: CPU {used:.2f} s in {seconds} s = {used / seconds * 100:.2f}% of one core, private (RssAnon) "
          f"{anon:.1f} MB, PSS {proportional:.1f} MB, RSS {rss:.1f} MB (file-backed {file:.1f}); RSS after each minute: "
          f"{', '.join(f'{r:.1f}' for r in samples[name])}")
    print(f"RESULT idle {name.split()[0]} rss_mb={rss:.2f} anon_mb={anon:.2f} pss_mb={proportional:.2f} file_mb={file:.2f} cpu_s={used:.3f} seconds={seconds}")
PY
  kill "$daemon" ${exporter:+"$exporter"} 2>/dev/null || true
  wait "$daemon" 2>/dev/null || true
  kill "$(cat "$dir/nginx.pid")" 2>/dev/null || true
  rm -rf "$dir"
}

# Throwaway P-256 CA and a 127.0.0.1 leaf it signed (ca.pem, leaf.pem, leaf.key in $1); with a second CA
# (other-ca.pem) that did not sign it, for the untrusted path.
make_loopback_pki() {
  local dir=$1
  for ca in ca other-ca; do
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj "/CN=netvigil bench $ca" \
      -keyout "$dir/$ca.key" -out "$dir/$ca.pem" 2>/dev/null
  done
  openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "/CN=127.0.0.1" \
    -keyout "$dir/leaf.key" -out "$dir/leaf.csr" 2>/dev/null
  printf 'subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n' > "$dir/leaf.ext"
  openssl x509 -req -in "$dir/leaf.csr" -CA "$dir/ca.pem" -CAkey "$dir/ca.key" -CAcreateserial -days 2 \
    -extfile "$dir/leaf.ext" -out "$dir/leaf.pem" 2>/dev/null
}

# nginx in the temporary prefix $1 with TLS 1.2 and 1.3 on 127.0.0.1-4:$2 (200, a 25-byte text body at /) and plain HTTP on $3
# (the same answer; the TLS-handshake-failure path probes it with https://).
start_tls_nginx() {
  local prefix=$1 port=$2 plain=$3
  run_nginx "$prefix" auto "  server {
    listen 127.0.0.1:$port ssl;
    listen 127.0.0.2:$port ssl;
    listen 127.0.0.3:$port ssl;
    listen 127.0.0.4:$port ssl;
    ssl_certificate $prefix/leaf.pem;
    ssl_certificate_key $prefix/leaf.key;
    ssl_protocols TLSv1.2 TLSv1.3;
    location / { default_type text/plain; return 200 \"netvigil probe benchmark\\n\"; }
  }
  server { listen 127.0.0.1:$plain; location / { default_type text/plain; return 200 \"netvigil probe benchmark\\n\"; } }"
}

# A new temporary directory TLS_DIR with the throwaway PKI and the TLS nginx of start_tls_nginx on ports $1 and $2;
# nginx stops and the directory goes when the script exits.
start_loopback_tls() {
  probe_workdir
  TLS_DIR=$PROBE_DIR
  make_loopback_pki "$TLS_DIR"
  start_tls_nginx "$TLS_DIR" "$1" "$2"
}

# blackbox_exporter's driver, written to $1: `python3 $1 PID HOST:PORT TARGET CONCURRENCY SECONDS [MODULE]` runs
# `concurrency` keep-alive clients of /probe for `seconds` (after 2 s warm-up); prints a RESULT line.
write_blackbox_driver() {
  cat > "$1" <<'PY'
import http.client, os, sys, threading, time, urllib.parse
pid, address, target, concurrency, seconds = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), float(sys.argv[5])
module = sys.argv[6] if len(sys.argv) > 6 else "https_2xx"
path = "/probe?" + urllib.parse.urlencode({"target": target, "module": module})
tick = os.sysconf("SC_CLK_TCK")
def cpu():
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / tick
counts = {"ok": 0, "failed": 0}
lock = threading.Lock()
def loop(end):
    connection = http.client.HTTPConnection(address, timeout=30)
    ok = failed = 0
    while time.monotonic() < end:
        connection.request("GET", path)
        body = connection.getresponse().read()
        if b"\nprobe_success 1\n" in body: ok += 1
        else: failed += 1
    connection.close()
    with lock: counts["ok"] += ok; counts["failed"] += failed
def run(duration):
    end = time.monotonic() + duration
    threads = [threading.Thread(target=loop, args=(end,)) for _ in range(concurrency)]
    for thread in threads: thread.start()
    for thread in threads: thread.join()
run(2)
counts.update(ok=0, failed=0)
before, start = cpu(), time.monotonic()
run(seconds)
elapsed, used = time.monotonic() - start, cpu() - before
probes = counts["ok"] + counts["failed"]
print(f"blackbox_exporter /probe: concurrency {concurrency} for {elapsed:.1f} s: {probes} probes (ok {counts['ok']}, failed {counts['failed']})")
print(f"  {probes / elapsed:.1f} probes/s wall; exporter CPU {used:.2f} s ({used / elapsed * 100:.0f}% of one core) = "
      f"{probes / used:.0f} probes per CPU-second, {used / probes * 1000:.3f} ms CPU per probe")
print(f"RESULT blackbox concurrency={concurrency} probes={probes} ok={counts['ok']} seconds={elapsed:.3f} cpu={used:.3f} "
      f"per_cpu_second={probes / used:.1f} per_second={probes / elapsed:.1f}")
PY
}

# The RESULT lines of ProbeBenchmarks throughput and of the driver in $1, pooled per concurrency: probes per CPU-second
# of each side (all probes / all CPU seconds) and their ratio, with each round's.
pooled_ratios() {
  python3 - "$1" <<'PY'
import collections, re, sys
runs = collections.defaultdict(list)  # (side, concurrency) -> [(probes, cpu)]
for line in open(sys.argv[1]):
    match = re.match(r"RESULT (throughput|blackbox) concurrency=(\d+) probes=(\d+) .*cpu=([\d.]+)", line)
    if match:
        side, concurrency, probes, cpu = match.groups()
        runs[(side, int(concurrency))].append((int(probes), float(cpu)))
print("probes per client CPU-second, netvigil vs blackbox_exporter, pooled over the rounds:")
for concurrency in sorted({c for _, c in runs}):
    ours, theirs = runs[("throughput", concurrency)], runs[("blackbox", concurrency)]
    def pooled(pairs): return sum(p for p, _ in pairs) / sum(c for _, c in pairs)
    rounds = [(a[0] / a[1]) / (b[0] / b[1]) for a, b in zip(ours, theirs)]
    print(f"  concurrency {concurrency}: {pooled(ours):.0f} vs {pooled(theirs):.0f} = {pooled(ours) / pooled(theirs):.2f}x "
          f"(rounds: {', '.join(f'{r:.2f}x' for r in rounds)})")
    print(f"RESULT ratio concurrency={concurrency} netvigil={pooled(ours):.1f} blackbox={pooled(theirs):.1f} "
          f"ratio={pooled(ours) / pooled(theirs):.3f} rounds={len(rounds)} min={min(rounds):.3f} max={max(rounds):.3f}")
PY
}

# Request stack (issue #5 §7): one HTTPS probe vs curl, probes per CPU-second vs prometheus-blackbox-exporter at
# concurrency 1/16/64 with `openssl s_time -new` as the ceiling, RSS and descriptors over 10,000 probes (and over the
# failure paths). Every probe on every side is a new TCP connection and a full TLS handshake to the same nginx URL.
# PROBE_RUNS (single probes, default 200), PROBE_SECONDS (per throughput run, 10), PROBE_ROUNDS (interleaved
# netvigil/blackbox_exporter runs per concurrency, 3), PROBE_RSS_PROBES (10000).
run_probe() {
  release --product ProbeBenchmarks
  release --product netvigil
  if ! command -v prometheus-blackbox-exporter >/dev/null && [ "$(id -u)" = 0 ]; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends prometheus-blackbox-exporter >/dev/null
  fi
  local dir; dir=$(mktemp -d)
  local port=18490 plain=18491 bbe=18492 closed=18493 silent=18494
  local url="https://127.0.0.1:$port/" runs=${PROBE_RUNS:-200} seconds=${PROBE_SECONDS:-10} rss=${PROBE_RSS_PROBES:-10000}
  PROBE_DIR=$dir
  probe_cleanup() {
    if [ -n "${PROBE_EXPORTER:-}" ]; then kill "$PROBE_EXPORTER" 2>/dev/null; wait "$PROBE_EXPORTER" 2>/dev/null || true; fi
    if [ -f "$PROBE_DIR/nginx.pid" ]; then kill "$(cat "$PROBE_DIR/nginx.pid")" 2>/dev/null || true; fi
    if [ -n "${PROBE_SILENT:-}" ]; then kill "$PROBE_SILENT" 2>/dev/null; wait "$PROBE_SILENT" 2>/dev/null || true; fi
    PROBE_SILENT=""
    PROBE_EXPORTER=""
    rm -rf "$PROBE_DIR"
  }
  trap probe_cleanup EXIT
  trap 'exit 130' INT TERM
  ulimit -n 8192 || true
  make_loopback_pki "$dir"
  start_tls_nginx "$dir" "$port" "$plain"
  curl -sf --cacert "$dir/ca.pem" -o /dev/null "$url"
  echo "probe: $url (nginx $(/usr/sbin/nginx -v 2>&1 | sed 's|.*/||'), P-256 leaf signed by a throwaway CA; $(openssl version | cut -d' ' -f1-2); $(curl --version | head -1 | cut -d' ' -f1-2))"
  echo "commit $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- Sources/NetVigilProber || echo ' + uncommitted changes in Sources/NetVigilProber')"

  # 1. One probe vs curl -w: in-process timings.total vs curl's time_total (both exclude process start), then whole
  #    fresh processes (`netvigil probe` vs curl), interleaved.
  echo "load: $(uptime | sed 's/.*load/load/')"
  "$bin/ProbeBenchmarks" single --url "$url" --ca "$dir/ca.pem" --runs "$runs"
  python3 - "$bin/netvigil" "$dir/ca.pem" "$url" "$runs" <<'PY'
import statistics, subprocess, sys, time
netvigil, ca, url, runs = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
curl = ["curl", "-s", "-o", "/dev/null", "--cacert", ca, "-w", "%{time_total}", url]
ours = [netvigil, "probe", "--ca", ca, "--no-system-roots", url]
def wall(command):
    start = time.monotonic()
    done = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    elapsed = (time.monotonic() - start) * 1000
    if done.returncode != 0: sys.exit(f"{command[0]} failed with {done.returncode}")
    return elapsed, done.stdout
for _ in range(5): wall(curl); wall(ours)
curl_total, curl_wall, ours_wall = [], [], []
for _ in range(runs):
    elapsed, out = wall(curl)
    curl_wall.append(elapsed); curl_total.append(float(out) * 1000)
    ours_wall.append(wall(ours)[0])
def p90(values): return sorted(values)[int(len(values) * 0.9) - 1]
m = statistics.median
print(f"curl -w %{{time_total}}: {runs} fresh processes: median {m(curl_total):.3f} ms, p90 {p90(curl_total):.3f} ms")
print(f"RESULT curl median_total_ms={m(curl_total):.4f} p90_total_ms={p90(curl_total):.4f}")
print(f"whole process, fresh each time, interleaved: curl median {m(curl_wall):.2f} ms (p90 {p90(curl_wall):.2f}), "
      f"netvigil probe median {m(ours_wall):.2f} ms (p90 {p90(ours_wall):.2f}); ratio netvigil/curl {m(ours_wall) / m(curl_wall):.2f}")
PY

  # 2. Sustained probes per client CPU-second: ProbeBenchmarks (getrusage of its own process) vs blackbox_exporter
  #    (utime+stime of its process from /proc/PID/stat, driven over keep-alive connections to /probe).
  cat > "$dir/blackbox.yml" <<YML
modules:
  https_2xx:
    prober: http
    timeout: 10s
    http:
      preferred_ip_protocol: ip4
      ip_protocol_fallback: false
      tls_config:
        ca_file: $dir/ca.pem
YML
  prometheus-blackbox-exporter --config.file="$dir/blackbox.yml" --web.listen-address="127.0.0.1:$bbe" \
    >"$dir/blackbox.log" 2>&1 &
  PROBE_EXPORTER=$!
  for _ in $(seq 50); do curl -sf -o /dev/null "http://127.0.0.1:$bbe/" && break; sleep 0.1; done
  curl -sf -o "$dir/first-probe.txt" "http://127.0.0.1:$bbe/probe?target=$url&module=https_2xx" || true
  grep -q '^probe_success 1' "$dir/first-probe.txt" \
    || { echo "blackbox_exporter probe of $url failed:"; curl -s "http://127.0.0.1:$bbe/probe?target=$url&module=https_2xx&debug=true"; exit 1; }
  write_blackbox_driver "$dir/drive-blackbox.py"
  # netvigil and blackbox_exporter take turns, $PROBE_ROUNDS rounds per concurrency: this machine's speed drifts by a
  # third within minutes, and alternating short runs puts both sides under the same drift. The summary pools the
  # rounds (all probes / all CPU seconds per side) and shows each round's ratio.
  local rounds=${PROBE_ROUNDS:-3}
  : > "$dir/throughput.txt"
  for concurrency in 1 16 64; do
    echo "load: $(uptime | sed 's/.*load/load/')"
    for round in $(seq "$rounds"); do
      echo "round $round of $rounds, concurrency $concurrency"
      "$bin/ProbeBenchmarks" throughput --url "$url" --ca "$dir/ca.pem" --concurrency "$concurrency" --seconds "$seconds" \
        | tee -a "$dir/throughput.txt"
      python3 "$dir/drive-blackbox.py" "$PROBE_EXPORTER" "127.0.0.1:$bbe" "$url" "$concurrency" "$seconds" \
        | tee -a "$dir/throughput.txt"
    done
  done
  pooled_ratios "$dir/throughput.txt"
  kill "$PROBE_EXPORTER" 2>/dev/null; wait "$PROBE_EXPORTER" 2>/dev/null || true
  PROBE_EXPORTER=""

  # 3. Ceiling: OpenSSL alone, one process doing full handshakes (no HTTP, no trust evaluation beyond OpenSSL's).
  echo "load: $(uptime | sed 's/.*load/load/')"
  python3 - "$dir/ca.pem" "127.0.0.1:$port" <<'PY'
import re, resource, subprocess, sys
ca, address = sys.argv[1], sys.argv[2]
out = subprocess.run(["openssl", "s_time", "-connect", address, "-new", "-time", "10", "-CAfile", ca],
                     capture_output=True, text=True, check=True).stdout
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
line = next(l for l in out.splitlines() if "connections/user sec" in l)
print(f"openssl s_time -new -time 10: {line.strip()}")
connections = int(re.match(r"\s*(\d+) connections", line).group(1))
cpu = usage.ru_utime + usage.ru_stime
print(f"  user+system CPU {cpu:.2f} s = {connections / cpu:.0f} handshakes per CPU-second (user only: {connections / usage.ru_utime:.0f})")
print(f"RESULT s_time connections={connections} cpu={cpu:.3f} per_cpu_second={connections / cpu:.1f} per_user_second={connections / usage.ru_utime:.1f}")
PY

  # 3b. addresses: all (issue #18): CPU of one tick over 4 addresses (connect_to 127.0.0.1-4, the same nginx) vs one
  #     probe, alternating rounds; goal: at most 4.2x.
  echo "load: $(uptime | sed 's/.*load/load/')"
  "$bin/ProbeBenchmarks" fanout --url "$url" --ca "$dir/ca.pem" --rounds "${PROBE_FANOUT_ROUNDS:-5}" --ticks "${PROBE_FANOUT_TICKS:-200}"

  # 4. Leaks: RSS and open descriptors after 100 and after $rss probes, on the success path and on four failure
  #    paths (untrusted chain, TLS handshake failure, connection refused, and a server that accepts and never answers:
  #    probe timeouts after 200 ms, 64 at a time: twice as many probes, checked from half of $rss on, since 64
  #    concurrent probes keep growing malloc arenas for the first few thousand before RSS settles).
  python3 - "$silent" <<'PY' &
import asyncio, sys
async def hold(reader, writer):
    await reader.read(-1)  # keep the connection until the client gives up
    writer.close()
async def main():
    server = await asyncio.start_server(hold, "127.0.0.1", int(sys.argv[1]), backlog=1024)
    async with server: await server.serve_forever()
asyncio.run(main())
PY
  PROBE_SILENT=$!
  echo "load: $(uptime | sed 's/.*load/load/')"
  local status=0
  "$bin/ProbeBenchmarks" rss --url "$url" --ca "$dir/ca.pem" --probes "$rss" || status=1
  "$bin/ProbeBenchmarks" rss --url "$url" --ca "$dir/other-ca.pem" --probes "$rss" --expect-failure || status=1
  "$bin/ProbeBenchmarks" rss --url "https://127.0.0.1:$plain/" --ca "$dir/ca.pem" --probes "$rss" --expect-failure || status=1
  "$bin/ProbeBenchmarks" rss --url "https://127.0.0.1:$closed/" --ca "$dir/ca.pem" --probes "$rss" --expect-failure || status=1
  "$bin/ProbeBenchmarks" rss --url "https://127.0.0.1:$silent/" --ca "$dir/ca.pem" --probes $((rss * 2)) --expect-failure \
    --concurrency 64 --timeout 0.2 --baseline $((rss / 2)) || status=1
  echo "load: $(uptime | sed 's/.*load/load/')"
  probe_cleanup
  trap - EXIT INT TERM
  return "$status"
}

# tls:// vs https:// against the same nginx port, and smtp:// (STARTTLS) vs smtps:// (implicit TLS) against one
# Postfix: CPU per probe in one process each, alternating rounds at concurrency 16 (the issue: a tls:// probe costs
# no more than an https probe minus the HTTP exchange; STARTTLS adds only the protocol's round trips).
run_probe_tls() {
  release --product ProbeBenchmarks
  local port=18495 plain=18496 seconds=${PROBE_SECONDS:-10} rounds=${PROBE_ROUNDS:-3}
  start_loopback_tls "$port" "$plain"
  local dir=$TLS_DIR
  # Postfix with a private configuration (as the tests start it): smtp:// (STARTTLS) vs smtps:// (implicit TLS).
  local smtp=18497 smtps=18498 root="$dir/postfix"
  mkdir -p "$root/conf" "$root/queue" "$root/data"
  chmod 755 "$dir" "$root"
  cp "$dir/leaf.pem" "$root/tls.pem"; cp "$dir/leaf.key" "$root/tls.key"; chown postfix "$root/data" "$root/tls.pem" "$root/tls.key"
  # The tests' configuration (Tests/Fixtures/postfix), with more smtpd processes for concurrency 16.
  for cf in main.cf master.cf; do
    sed -e "s|@ROOT@|$root|g" -e "s|@SMTP_PORT@|$smtp|g" -e "s|@SMTPS_PORT@|$smtps|g" \
      "Tests/Fixtures/postfix/$cf.template" > "$root/conf/$cf"
  done
  echo "default_process_limit = 200" >> "$root/conf/main.cf"
  /usr/sbin/postfix -c "$root/conf" check
  /usr/sbin/postfix -c "$root/conf" start-fg >"$dir/postfix.log" 2>&1 &
  local postfix_pid=$!
  for _ in $(seq 100); do (exec 3<>/dev/tcp/127.0.0.1/$smtps) 2>/dev/null && break; sleep 0.1; done
  echo "probe-tls: https://127.0.0.1:$port/ vs tls://127.0.0.1:$port (nginx, P-256 leaf), smtp://127.0.0.1:$smtp vs smtps://127.0.0.1:$smtps (Postfix $(postconf -h mail_version)); commit $(git rev-parse --short HEAD)"
  : > "$dir/rounds.txt"
  for round in $(seq "$rounds"); do
    echo "load: $(uptime | sed 's/.*load/load/')"
    for url in "https://127.0.0.1:$port/" "tls://127.0.0.1:$port" "smtp://127.0.0.1:$smtp" "smtps://127.0.0.1:$smtps"; do
      "$bin/ProbeBenchmarks" throughput --url "$url" --ca "$dir/ca.pem" --concurrency 16 --seconds "$seconds" \
        | sed "s|^RESULT throughput|RESULT ${url%%:*}|" | tee -a "$dir/rounds.txt"
    done
  done
  /usr/sbin/postfix -c "$root/conf" stop >/dev/null 2>&1 || kill "$postfix_pid" 2>/dev/null || true
  wait "$postfix_pid" 2>/dev/null || true
  python3 - "$dir/rounds.txt" <<'PY'
import collections, re, sys
pooled = collections.defaultdict(lambda: [0, 0.0])
for line in open(sys.argv[1]):
    match = re.match(r"RESULT (https|tls|smtp|smtps) concurrency=\d+ probes=(\d+) ok=(\d+) .*cpu=([\d.]+)", line)
    if match:
        side, probes, ok, cpu = match.groups()
        if int(ok) != int(probes): sys.exit(f"{side}: {int(probes) - int(ok)} probes failed")
        pooled[side][0] += int(probes); pooled[side][1] += float(cpu)
https, tls, smtp, smtps = (pooled[side][1] / pooled[side][0] * 1000 for side in ("https", "tls", "smtp", "smtps"))
print(f"CPU per probe, pooled: https {https:.3f} ms, tls:// {tls:.3f} ms; tls/https {tls / https:.2f}")
print(f"CPU per probe, pooled: smtps:// {smtps:.3f} ms, smtp:// (STARTTLS) {smtp:.3f} ms; smtp/smtps {smtp / smtps:.2f}")
print(f"RESULT probe-tls https_ms={https:.4f} tls_ms={tls:.4f} ratio={tls / https:.3f} smtps_ms={smtps:.4f} smtp_ms={smtp:.4f} "
      f"starttls_ratio={smtp / smtps:.3f}")
PY
}

# Start-up (issue #23): a fresh `netvigil probe` of a loopback HTTPS URL vs curl for the same URL (same CA file),
# and `netvigil version`, with hyperfine: STARTUP_ROUNDS (default 5) alternating rounds of STARTUP_RUNS (20) runs
# per command, pooled, so both sides see the same machine load. STARTUP_PORT (18500) and the next port for nginx.
run_startup() {
  release --product netvigil
  local port=${STARTUP_PORT:-18500} rounds=${STARTUP_ROUNDS:-5} runs=${STARTUP_RUNS:-20}
  local plain=$((port + 1))
  start_loopback_tls "$port" "$plain"
  local dir=$TLS_DIR
  local url="https://127.0.0.1:$port/"
  curl -sf --cacert "$dir/ca.pem" -o /dev/null "$url"
  "$bin/netvigil" probe --ca "$dir/ca.pem" --no-system-roots "$url" >/dev/null
  echo "startup: $url (nginx, P-256 leaf, throwaway CA); $(hyperfine --version); $(curl --version | head -1 | cut -d' ' -f1-2); commit $(git rev-parse --short HEAD); binary $(stat -c %s "$bin/netvigil") bytes"
  echo "load: $(uptime | sed 's/.*load/load/')"
  for round in $(seq "$rounds"); do
    hyperfine -N --warmup 3 --runs "$runs" --export-json "$dir/round$round.json" \
      -n curl "curl -s -o /dev/null --cacert $dir/ca.pem $url" \
      -n probe "$bin/netvigil probe --ca $dir/ca.pem --no-system-roots $url" \
      -n version "$bin/netvigil version" >/dev/null
  done
  echo "load: $(uptime | sed 's/.*load/load/')"
  python3 - "$dir" "$rounds" <<'PY'
import json, statistics, sys
directory, rounds = sys.argv[1], int(sys.argv[2])
times = {}
for round in range(1, rounds + 1):
    for result in json.load(open(f"{directory}/round{round}.json"))["results"]:
        times.setdefault(result["command"], []).extend(t * 1000 for t in result["times"])
m = {name: statistics.median(values) for name, values in times.items()}
for name, values in times.items():
    print(f"{name}: median {m[name]:.2f} ms, mean {statistics.mean(values):.2f} ms, min {min(values):.2f} ms ({len(values)} runs)")
print(f"netvigil probe / curl: {m['probe'] / m['curl']:.2f}x; netvigil version {m['version']:.2f} ms")
print(f"RESULT startup curl_ms={m['curl']:.3f} probe_ms={m['probe']:.3f} ratio={m['probe'] / m['curl']:.3f} version_ms={m['version']:.3f}")
PY
}

# A new temporary directory in PROBE_DIR; on exit its nginx (nginx.pid) is stopped and the directory removed.
probe_workdir() {
  PROBE_DIR=$(mktemp -d)
  trap 'if [ -f "$PROBE_DIR/nginx.pid" ]; then kill "$(cat "$PROBE_DIR/nginx.pid")" 2>/dev/null || true; fi; rm -rf "$PROBE_DIR"' EXIT
}

# Throwaway P-256 root → intermediate → 127.0.0.1 leaf in $1 (root.pem; chain.pem = leaf + intermediate, chain.key),
# as the webpki profile wants them (SKI/AKI, critical basicConstraints, keyUsage, EKU serverAuth), the leaf and the
# intermediate with a CRL distribution point under $2 (URL prefix), and both CRLs (root.crl, intermediate.crl, DER,
# nextUpdate in a day, 1,000 other serials revoked each).
make_revocation_pki() {
  python3 - "$1" "$2" <<'PY'
import datetime, sys
from cryptography import x509
from cryptography.x509.oid import NameOID, ExtendedKeyUsageOID
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
import ipaddress
out, crl_base = sys.argv[1], sys.argv[2]
now = datetime.datetime.now(datetime.timezone.utc)
def key(): return ec.generate_private_key(ec.SECP256R1())
def name(cn): return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, cn)])
def cdp(url): return x509.CRLDistributionPoints([x509.DistributionPoint([x509.UniformResourceIdentifier(url)], None, None, None)])
def build(subject, subject_key, issuer, issuer_key, ca, extra):
    b = (x509.CertificateBuilder().subject_name(name(subject)).issuer_name(name(issuer)).public_key(subject_key.public_key())
         .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(hours=1))
         .not_valid_after(now + datetime.timedelta(days=2))
         .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
         .add_extension(x509.KeyUsage(digital_signature=not ca, content_commitment=False, key_encipherment=False,
                                      data_encipherment=False, key_agreement=False, key_cert_sign=ca, crl_sign=ca,
                                      encipher_only=False, decipher_only=False), critical=True)
         .add_extension(x509.SubjectKeyIdentifier.from_public_key(subject_key.public_key()), critical=False)
         .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(issuer_key.public_key()), critical=False))
    for extension in extra: b = b.add_extension(extension, critical=False)
    return b.sign(issuer_key, hashes.SHA256())
def pem(path, data): open(f"{out}/{path}", "wb").write(data)
def crl(issuer, issuer_key, path, revoked):
    b = (x509.CertificateRevocationListBuilder().issuer_name(name(issuer)).last_update(now - datetime.timedelta(hours=1))
         .next_update(now + datetime.timedelta(days=1))
         .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(issuer_key.public_key()), critical=False)
         .add_extension(x509.CRLNumber(1), critical=False))
    for serial in revoked:
        b = b.add_revoked_certificate(x509.RevokedCertificateBuilder().serial_number(serial)
                                      .revocation_date(now - datetime.timedelta(hours=1)).build())
    pem(path, b.sign(issuer_key, hashes.SHA256()).public_bytes(serialization.Encoding.DER))
root_key, int_key, leaf_key = key(), key(), key()
root = build("netvigil bench root", root_key, "netvigil bench root", root_key, True, [])
inter = build("netvigil bench intermediate", int_key, "netvigil bench root", root_key, True, [cdp(f"{crl_base}/root.crl")])
leaf = build("127.0.0.1", leaf_key, "netvigil bench intermediate", int_key, False, [
    x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
    x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), cdp(f"{crl_base}/intermediate.crl")])
P = serialization.Encoding.PEM
pem("root.pem", root.public_bytes(P))
pem("chain.pem", leaf.public_bytes(P) + inter.public_bytes(P))
pem("chain.key", leaf_key.private_bytes(P, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
# 1,000 revoked serials per CRL (none of them ours): a small CA's CRL, about 21 KB.
crl("netvigil bench root", root_key, "root.crl", range(1000, 2000))
crl("netvigil bench intermediate", int_key, "intermediate.crl", range(5000, 6000))
PY
}

# Issue #20: what the webpki checks, revocation with a warm cache and findings add to a probe's CPU. One
# ProbeBenchmarks process per side and round at concurrency 16, alternating: `--validation rfc5280 --revocation off`
# vs `--validation webpki --revocation soft`, against nginx serving a root → intermediate → leaf chain whose leaf and
# intermediate name CRL distribution points on the same nginx (plain HTTP). Each process downloads both CRLs once
# (in its warm-up), then every probe checks both certificates against the cached CRLs. A `--revocation hard` probe
# first proves the CRLs are found and good. PROBE_SECONDS (per side and round, 10), PROBE_ROUNDS (4). BASELINE: the
# ProbeBenchmarks binary of another commit, whose webpki/soft side joins each round (a change's cost side by side).
run_probe_trust() {
  release --product ProbeBenchmarks
  probe_workdir
  local dir=$PROBE_DIR port=18500 plain=18501 seconds=${PROBE_SECONDS:-10} rounds=${PROBE_ROUNDS:-4}
  ulimit -n 8192 || true
  make_revocation_pki "$dir" "http://127.0.0.1:$plain"
  chmod 755 "$dir"; chmod 644 "$dir"/*.crl  # nginx's workers (nobody) serve the CRLs
  run_nginx "$dir" auto "  server {
    listen 127.0.0.1:$port ssl;
    ssl_certificate $dir/chain.pem;
    ssl_certificate_key $dir/chain.key;
    ssl_protocols TLSv1.2 TLSv1.3;
    location / { default_type text/plain; return 200 \"netvigil probe benchmark\\n\"; }
  }
  server { listen 127.0.0.1:$plain; location / { root $dir; } }"
  local url="https://127.0.0.1:$port/"
  echo "probe-trust: $url (nginx, P-256 root → intermediate → leaf, CRL distribution points on http://127.0.0.1:$plain/), concurrency 16; commit $(git rev-parse --short HEAD)"
  "$bin/ProbeBenchmarks" single --url "$url" --ca "$dir/root.pem" --runs 5 --warmup 0 --revocation hard > "$dir/hard.txt"
  grep -E "^single|first failure" "$dir/hard.txt"
  grep -q "ok=5 runs=5" "$dir/hard.txt" || { echo "revocation: hard does not find both CRLs good"; exit 1; }
  : > "$dir/rounds.txt"
  for round in $(seq "$rounds"); do
    echo "round $round of $rounds; load: $(uptime | sed 's/.*load/load/')"
    for side in rfc5280/off webpki/soft; do
      "$bin/ProbeBenchmarks" throughput --url "$url" --ca "$dir/root.pem" --concurrency 16 --seconds "$seconds" \
        --validation "${side%/*}" --revocation "${side#*/}" \
        | sed "s|^RESULT throughput|RESULT ${side%/*}|" | tee -a "$dir/rounds.txt"
    done
    if [ -n "${BASELINE:-}" ]; then
      "$BASELINE" throughput --url "$url" --ca "$dir/root.pem" --concurrency 16 --seconds "$seconds" \
        --validation webpki --revocation soft | sed "s|^RESULT throughput|RESULT baseline|" | tee -a "$dir/rounds.txt"
    fi
  done
  python3 - "$dir/rounds.txt" <<'PY'
import collections, re, sys
runs = collections.defaultdict(list)
for line in open(sys.argv[1]):
    match = re.match(r"RESULT (rfc5280|webpki|baseline) concurrency=\d+ probes=(\d+) ok=(\d+) .*cpu=([\d.]+)", line)
    if match:
        side, probes, ok, cpu = match.groups()
        if int(ok) != int(probes): sys.exit(f"{side}: {int(probes) - int(ok)} probes failed")
        runs[side].append((int(probes), float(cpu)))
def ms(pairs): return sum(c for _, c in pairs) / sum(p for p, _ in pairs) * 1000
base, full = ms(runs["rfc5280"]), ms(runs["webpki"])
rounds = [(b[1] / b[0]) / (a[1] / a[0]) for a, b in zip(runs["rfc5280"], runs["webpki"])]
print(f"CPU per probe, pooled: rfc5280 + revocation off {base:.3f} ms, webpki + revocation soft (warm CRLs) {full:.3f} ms: "
      f"{(full / base - 1) * 100:+.1f} % (rounds: {', '.join(f'{(r - 1) * 100:+.1f} %' for r in rounds)})")
print(f"RESULT probe-trust base_ms={base:.4f} webpki_soft_ms={full:.4f} overhead={full / base - 1:.4f} rounds={len(rounds)}")
if runs["baseline"]:
    before = ms(runs["baseline"])
    print(f"webpki + revocation soft against BASELINE's: {before:.3f} ms before, {full:.3f} ms now: {(full / before - 1) * 100:+.1f} %")
    print(f"RESULT probe-trust-baseline before_ms={before:.4f} now_ms={full:.4f} change={full / before - 1:.4f}")
PY
}

# Issue #18: HTTP/2 probes per client CPU-second, netvigil (`--http-version 2`) vs prometheus-blackbox-exporter with
# `enable_http2: true` and `valid_http_versions: [HTTP/2.0]`, against one nginx with `listen ... ssl http2` (both
# sides fail a probe that does not get h2). As in `probe`: every probe a new connection, full handshake and one
# request; the sides take turns, PROBE_ROUNDS (3) rounds of PROBE_SECONDS (10) per side at concurrency 1, 16, 64.
# PROBE_H2_PORT (18505): nginx's port, blackbox_exporter listens on the next one.
run_probe_h2() {
  release --product ProbeBenchmarks
  local dir; dir=$(mktemp -d)
  local port=${PROBE_H2_PORT:-18505} bbe=$((${PROBE_H2_PORT:-18505} + 1)) seconds=${PROBE_SECONDS:-10} rounds=${PROBE_ROUNDS:-3}
  PROBE_DIR=$dir
  probe_h2_cleanup() {
    if [ -n "${PROBE_EXPORTER:-}" ]; then kill "$PROBE_EXPORTER" 2>/dev/null; wait "$PROBE_EXPORTER" 2>/dev/null || true; fi
    if [ -f "$PROBE_DIR/nginx.pid" ]; then kill "$(cat "$PROBE_DIR/nginx.pid")" 2>/dev/null || true; fi
    PROBE_EXPORTER=""
    rm -rf "$PROBE_DIR"
  }
  trap probe_h2_cleanup EXIT
  trap 'exit 130' INT TERM
  ulimit -n 8192 || true
  make_loopback_pki "$dir"
  run_nginx "$dir" auto "  server {
    listen 127.0.0.1:$port ssl http2;
    ssl_certificate $dir/leaf.pem;
    ssl_certificate_key $dir/leaf.key;
    ssl_protocols TLSv1.2 TLSv1.3;
    location / { default_type text/plain; return 200 \"netvigil probe benchmark\\n\"; }
  }"
  local url="https://127.0.0.1:$port/"
  [ "$(curl -s --http2 --cacert "$dir/ca.pem" -o /dev/null -w '%{http_version}' "$url")" = 2 ] || { echo "nginx does not answer h2"; exit 1; }
  cat > "$dir/blackbox.yml" <<YML
modules:
  h2_2xx:
    prober: http
    timeout: 10s
    http:
      preferred_ip_protocol: ip4
      ip_protocol_fallback: false
      enable_http2: true
      valid_http_versions: ["HTTP/2.0"]
      tls_config:
        ca_file: $dir/ca.pem
YML
  prometheus-blackbox-exporter --config.file="$dir/blackbox.yml" --web.listen-address="127.0.0.1:$bbe" >"$dir/blackbox.log" 2>&1 &
  PROBE_EXPORTER=$!
  for _ in $(seq 50); do curl -sf -o /dev/null "http://127.0.0.1:$bbe/" && break; sleep 0.1; done
  curl -s "http://127.0.0.1:$bbe/probe?target=$url&module=h2_2xx" > "$dir/first-probe.txt" || true
  grep -q '^probe_success 1' "$dir/first-probe.txt" && grep -q '^probe_http_version 2' "$dir/first-probe.txt" \
    || { echo "blackbox_exporter h2 probe of $url failed:"; curl -s "http://127.0.0.1:$bbe/probe?target=$url&module=h2_2xx&debug=true"; exit 1; }
  echo "probe-h2: $url (nginx $(/usr/sbin/nginx -v 2>&1 | sed 's|.*/||'), http2), blackbox_exporter $(prometheus-blackbox-exporter --version 2>&1 | sed -n 's/.*version \([^ ]*\).*/\1/p' | head -1) enable_http2; commit $(git rev-parse --short HEAD)"
  "$bin/ProbeBenchmarks" single --url "$url" --ca "$dir/ca.pem" --runs 20 --http-version 2 | grep -E "^single|negotiated|CPU|first failure"
  write_blackbox_driver "$dir/drive-blackbox.py"
  : > "$dir/throughput.txt"
  for concurrency in 1 16 64; do
    for round in $(seq "$rounds"); do
      echo "round $round of $rounds, concurrency $concurrency; load: $(uptime | sed 's/.*load/load/')"
      "$bin/ProbeBenchmarks" throughput --url "$url" --ca "$dir/ca.pem" --concurrency "$concurrency" --seconds "$seconds" \
        --http-version 2 | tee -a "$dir/throughput.txt"
      python3 "$dir/drive-blackbox.py" "$PROBE_EXPORTER" "127.0.0.1:$bbe" "$url" "$concurrency" "$seconds" h2_2xx \
        | tee -a "$dir/throughput.txt"
    done
  done
  pooled_ratios "$dir/throughput.txt"
  probe_h2_cleanup
  trap - EXIT INT TERM
}

# Scale: the real daemon (`netvigil run`, release) with SCALE_TARGETS (10000) HTTPS targets every 60 s
# against loopback nginx (TLS, every probe a new connection and handshake, webpki + revocation soft, the throwaway CA
# as the system roots through SSL_CERT_FILE, so all targets share one trust store as system-root targets do).
# After SCALE_WARMUP s (70: every target has ticked; 150 at 10,000 targets, whose first cycle runs long) it measures
# for SCALE_SECONDS (180): CPU, private memory (RssAnon, PSS) and RSS of the daemon,
# probes finished (`netvigil_probes_total`), lateness quantiles and skipped ticks (`netvigil_scheduler_*`), rows
# stored vs probes finished, store size, `/v1/status` latency and `netvigil status` wall time, and, half-way, a SIGHUP
# reload of the same file (time until the daemon logs `configuration reloaded`). nginx runs on the same two cores.
run_scale() {
  release --product netvigil
  local dir; dir=$(mktemp -d)
  local port=18510 plain=18511 feed=18512 targets=${SCALE_TARGETS:-10000}
  PROBE_DIR=$dir
  trap 'if [ -n "${SCALE_DAEMON:-}" ]; then kill "$SCALE_DAEMON" 2>/dev/null; wait "$SCALE_DAEMON" 2>/dev/null || true; fi; if [ -f "$PROBE_DIR/nginx.pid" ]; then kill "$(cat "$PROBE_DIR/nginx.pid")" 2>/dev/null || true; fi; rm -rf "$PROBE_DIR"' EXIT
  ulimit -n "$(ulimit -Hn)" || true
  make_loopback_pki "$dir"
  start_tls_nginx "$dir" "$port" "$plain"
  {
    echo "storage: { path: $dir/state/netvigil.sqlite }"
    echo "feed: { listen: 127.0.0.1:$feed }"
    echo "log: { level: notice }"
    echo "targets:"
    for i in $(seq 0 $((targets - 1))); do echo "  - { name: t$i, url: \"https://127.0.0.1:$port/?t=$i\", interval: 60s }"; done
  } > "$dir/netvigil.yml"
  echo "scale: $targets targets, https://127.0.0.1:$port/ every 60 s (nginx $(/usr/sbin/nginx -v 2>&1 | sed 's|.*/||'), 2 workers), warm-up ${SCALE_WARMUP:-70} s, measured ${SCALE_SECONDS:-180} s; commit $(git rev-parse --short HEAD)"
  GLIBC_TUNABLES=$TCACHE_OFF SSL_CERT_FILE=$dir/ca.pem SSL_CERT_DIR=$dir/no-such-dir "$bin/netvigil" run --config "$dir/netvigil.yml" 2>"$dir/daemon.log" &
  SCALE_DAEMON=$!
  python3 - "$SCALE_DAEMON" "$feed" "$dir" "$bin/netvigil" "$targets" "${SCALE_WARMUP:-70}" "${SCALE_SECONDS:-180}" <<'PY'
import os, re, signal, sqlite3, statistics, subprocess, sys, time, urllib.request
pid, feed, directory, netvigil = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
targets, warmup, seconds = int(sys.argv[5]), float(sys.argv[6]), float(sys.argv[7])
base = f"http://127.0.0.1:{feed}"
tick = os.sysconf("SC_CLK_TCK")
def cpu(): f = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split(); return (int(f[11]) + int(f[12])) / tick
def status(field):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith(field + ":"): return int(line.split()[1]) / 1024
def get(path):
    start = time.monotonic()
    with urllib.request.urlopen(base + path, timeout=30) as response: body = response.read()
    return body, (time.monotonic() - start) * 1000
def metrics():
    body, elapsed = get("/metrics")
    values = {"probes": 0.0, "failed": 0.0}
    for line in body.decode().splitlines():
        if line.startswith("netvigil_probes_total{"):
            value = float(line.rsplit(" ", 1)[1]); values["probes"] += value
            if 'outcome="failed"' in line: values["failed"] += value
        elif line.startswith(("netvigil_scheduler_", "netvigil_store_", "netvigil_healthy")):
            name, value = line.rsplit(" ", 1); values[name] = float(value)
    values["scrape_ms"], values["scrape_bytes"] = elapsed, len(body)
    return values
def pss():
    for line in open(f"/proc/{pid}/smaps_rollup"):
        if line.startswith("Pss:"): return int(line.split()[1]) / 1024
def rows():
    connection = sqlite3.connect(f"file:{directory}/state/netvigil.sqlite?mode=ro", uri=True, timeout=30)
    try: return connection.execute("SELECT COUNT(*) FROM probe_results").fetchone()[0]
    finally: connection.close()
def store_mb():
    return sum(os.path.getsize(f"{directory}/state/{name}") for name in os.listdir(f"{directory}/state")) / 1e6
for _ in range(600):
    try:
        get("/healthz"); break
    except Exception: time.sleep(0.1)
started = time.monotonic()
print(f"daemon up; RSS {status('VmRSS'):.1f} MB; warm-up {warmup:.0f} s")
time.sleep(warmup)
m0, c0, r0, t0 = metrics(), cpu(), rows(), time.monotonic()
peak, peak_anon, samples, reload_ms, reload_skipped = 0.0, 0.0, [], None, None
log = f"{directory}/daemon.log"
while time.monotonic() - t0 < seconds:
    time.sleep(5)
    peak, peak_anon = max(peak, status("VmRSS")), max(peak_anon, status("RssAnon"))
    if reload_ms is None and time.monotonic() - t0 >= seconds / 2:
        before = open(log).read().count("configuration reloaded")
        with open(f"{directory}/netvigil.yml", "a") as config: config.write("# reloaded\n")
        sent = time.monotonic()
        os.kill(pid, signal.SIGHUP)
        while open(log).read().count("configuration reloaded") == before and time.monotonic() - sent < 60: time.sleep(0.005)
        reload_ms = (time.monotonic() - sent) * 1000
        print(f"SIGHUP reload of {targets} targets: {reload_ms:.0f} ms until 'configuration reloaded' was logged")
m1, c1, t1 = metrics(), cpu(), time.monotonic()
r1 = rows()
elapsed, used = t1 - t0, c1 - c0
finished = m1["probes"] - m0["probes"]
print(f"{targets} targets, {elapsed:.0f} s measured after {warmup:.0f} s: {finished:.0f} probes finished ({finished / elapsed:.1f}/s, "
      f"expected {targets / 60:.1f}/s), failed {m1['failed'] - m0['failed']:.0f}")
print(f"  CPU {used:.1f} s = {used / elapsed * 100:.1f} % of one core; private memory (RssAnon) {status('RssAnon'):.1f} MB "
      f"(peak sampled {peak_anon:.1f}), PSS {pss():.1f} MB; RSS {status('VmRSS'):.1f} MB (peak sampled {peak:.1f}, VmHWM {status('VmHWM'):.1f})")
late = {q: m1.get(f'netvigil_scheduler_start_lateness_seconds{{percentile="{q}"}}', float('nan')) * 1000 for q in ("50", "99", "100")}
skipped = m1["netvigil_scheduler_skipped_ticks_total"] - m0["netvigil_scheduler_skipped_ticks_total"]
print(f"  lateness of probe starts (newest 10,000): p50 {late['50']:.2f} ms, p99 {late['99']:.2f} ms, max {late['100']:.2f} ms; "
      f"ticks skipped in the window {skipped:.0f} (since start {m1['netvigil_scheduler_skipped_ticks_total']:.0f})")
print(f"  rows stored in the window {r1 - r0} vs probes finished {finished:.0f}; queued {m1.get('netvigil_store_queued_rows', 0):.0f}, "
      f"dropped {m1.get('netvigil_store_dropped_rows_total', 0):.0f}; store {store_mb():.1f} MB ({r1} rows)")
print(f"  /metrics scrape: {m1['scrape_bytes'] / 1e6:.1f} MB in {m1['scrape_ms']:.0f} ms")
latencies = sorted(get("/v1/status")[1] for _ in range(20))
print(f"  GET /v1/status: median {statistics.median(latencies):.1f} ms, p90 {latencies[17]:.1f} ms, max {latencies[-1]:.1f} ms (20 requests)")
walls = []
for _ in range(10):
    start = time.monotonic()
    subprocess.run([netvigil, "status", "--feed", base], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    walls.append((time.monotonic() - start) * 1000)
walls.sort()
print(f"  netvigil status (fresh process, {targets} targets): median {statistics.median(walls):.0f} ms, max {walls[-1]:.0f} ms (10 runs)")
print(f"RESULT scale targets={targets} seconds={elapsed:.0f} probes={finished:.0f} cpu_percent={used / elapsed * 100:.2f} "
      f"anon_mb={status('RssAnon'):.1f} peak_anon_mb={peak_anon:.1f} pss_mb={pss():.1f} rss_mb={status('VmRSS'):.1f} p50_ms={late['50']:.3f} p99_ms={late['99']:.3f} max_ms={late['100']:.3f} skipped={skipped:.0f} "
      f"rows={r1 - r0} store_mb={store_mb():.1f} status_ms={statistics.median(latencies):.1f} cli_ms={statistics.median(walls):.0f} "
      f"reload_ms={reload_ms or 0:.0f}")
PY
  kill "$SCALE_DAEMON" 2>/dev/null; wait "$SCALE_DAEMON" 2>/dev/null || true
  SCALE_DAEMON=""
  grep -E "error|critical" "$dir/daemon.log" | head -5 || true
}

# `GET /v1/status` and `netvigil status` with STATUS_TARGETS (default 10,000) HTTPS targets that all have a last
# result, without the scale run's 10 minutes: the daemon probes each target once (first ticks spread over 100 s at
# 10,000 targets), then is quiet until STATUS_INTERVAL (default 10m) comes round, and the two are timed on the quiet
# daemon: STATUS_REQUESTS (30) rounds of curl requests of the full, brief and rows views (medians) and hyperfine over
# STATUS_RUNS (20) fresh `netvigil status` runs; STATUS_BASELINE=BINARY adds as many runs of another build's CLI.
run_status() {
  release --product netvigil
  local port=18520 plain=18521 feed=18522 targets=${STATUS_TARGETS:-10000}
  start_loopback_tls "$port" "$plain"
  local dir=$TLS_DIR
  trap 'if [ -n "${STATUS_DAEMON:-}" ]; then kill "$STATUS_DAEMON" 2>/dev/null; wait "$STATUS_DAEMON" 2>/dev/null || true; fi; if [ -f "$PROBE_DIR/nginx.pid" ]; then kill "$(cat "$PROBE_DIR/nginx.pid")" 2>/dev/null || true; fi; rm -rf "$PROBE_DIR"' EXIT
  ulimit -n "$(ulimit -Hn)" || true
  {
    echo "storage: { path: $dir/state/netvigil.sqlite }"
    echo "feed: { listen: 127.0.0.1:$feed }"
    echo "log: { level: warning }"
    echo "targets:"
    for i in $(seq 0 $((targets - 1))); do
      echo "  - { name: t$i, url: \"https://127.0.0.1:$port/?t=$i\", interval: ${STATUS_INTERVAL:-10m} }"
    done
  } > "$dir/netvigil.yml"
  echo "status: $targets targets, https://127.0.0.1:$port/ every ${STATUS_INTERVAL:-10m}; $(hyperfine --version); commit $(git rev-parse --short HEAD)"
  GLIBC_TUNABLES=$TCACHE_OFF SSL_CERT_FILE=$dir/ca.pem SSL_CERT_DIR=$dir/no-such-dir "$bin/netvigil" run --config "$dir/netvigil.yml" 2>"$dir/daemon.log" &
  STATUS_DAEMON=$!
  local base="http://127.0.0.1:$feed"
  # Wait until no target is pending (every one has its last result), then for the last results' writes to settle.
  python3 - "$base" "$targets" <<'PY'
import json, sys, time, urllib.request
base, targets = sys.argv[1], int(sys.argv[2])
start = time.monotonic()
while True:
    try:
        with urllib.request.urlopen(base + "/v1/status", timeout=60) as response: document = json.load(response)
        pending = sum(1 for target in document["targets"] if target["status"] == "pending")
        if len(document["targets"]) == targets and pending == 0: break
    except OSError:
        pass
    if time.monotonic() - start > 900: sys.exit("status: targets still pending after 900 s")
    time.sleep(5)
print(f"every target has a result after {time.monotonic() - start:.0f} s")
PY
  sleep 5
  echo "load: $(uptime | sed 's/.*load/load/')"
  local body; body=$(curl -s -o /dev/null -w '%{size_download}' "$base/v1/status")
  for view in full brief rows; do
    curl -s -o /dev/null -w "$view %{size_download}\n" "$base/v1/status?view=$view"
  done > "$dir/sizes.txt"
  for _ in $(seq "${STATUS_REQUESTS:-30}"); do
    for view in full brief rows; do
      curl -s -o /dev/null -w "$view %{time_total}\n" "$base/v1/status?view=$view"
    done
  done > "$dir/curl.txt"
  local baseline=()
  if [ -n "${STATUS_BASELINE:-}" ]; then baseline=(-n baseline "$STATUS_BASELINE status --feed $base"); fi
  hyperfine -N --warmup 2 --runs "${STATUS_RUNS:-20}" --export-json "$dir/cli.json" \
    -n status "$bin/netvigil status --feed $base" -n json "$bin/netvigil status --json --feed $base" "${baseline[@]}" >/dev/null
  echo "load: $(uptime | sed 's/.*load/load/')"
  python3 - "$dir" "$targets" "$body" <<'PY'
import json, statistics, sys
directory, targets, body = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
sizes = dict(line.split() for line in open(f"{directory}/sizes.txt"))
curl = {}
for line in open(f"{directory}/curl.txt"):
    view, seconds = line.split()
    curl.setdefault(view, []).append(float(seconds) * 1000)
for view, times in curl.items():
    times.sort()
    print(f"GET /v1/status?view={view} ({int(sizes[view]) / 1e6:.2f} MB): median {statistics.median(times):.1f} ms, "
          f"min {times[0]:.1f} ms, max {times[-1]:.1f} ms ({len(times)} requests)")
labels = {"status": "netvigil status", "json": "netvigil status --json", "baseline": "STATUS_BASELINE status"}
cli = {r["command"]: [t * 1000 for t in r["times"]] for r in json.load(open(f"{directory}/cli.json"))["results"]}
for name, times in cli.items():
    print(f"{labels[name]}: median {statistics.median(times):.0f} ms, min {min(times):.0f} ms, max {max(times):.0f} ms "
          f"({len(times)} runs)")
print(f"RESULT status targets={targets} bytes={body} status_ms={statistics.median(curl['full']):.2f} "
      f"brief_ms={statistics.median(curl['brief']):.2f} rows_ms={statistics.median(curl['rows']):.2f} "
      f"cli_ms={statistics.median(cli['status']):.1f} cli_json_ms={statistics.median(cli['json']):.1f}"
      + (f" baseline_ms={statistics.median(cli['baseline']):.1f}" if "baseline" in cli else ""))
PY
  kill "$STATUS_DAEMON" 2>/dev/null; wait "$STATUS_DAEMON" 2>/dev/null || true
  STATUS_DAEMON=""
  grep -E "error|critical" "$dir/daemon.log" | head -5 || true
}

# SIGHUP reloads of RELOAD_TARGETS (10,000) targets on quiet daemons (`interval: 10m`, nothing listening), timed
# until the daemon logs `configuration reloaded`, RELOAD_ROUNDS (8) rounds; RELOAD_BASELINE=BINARY runs another
# build's daemon beside this one, the two reloaded in turn (Benchmarks/reload.py).
run_reload() {
  release --product netvigil
  echo "reload: ${RELOAD_TARGETS:-10000} targets, ${RELOAD_ROUNDS:-8} rounds; commit $(git rev-parse --short HEAD)"
  python3 Benchmarks/reload.py --targets "${RELOAD_TARGETS:-10000}" --rounds "${RELOAD_ROUNDS:-8}" \
    "$bin/netvigil" ${RELOAD_BASELINE:+"$RELOAD_BASELINE"}
}

# One PostgreSQL 15 for a fleet benchmark: initdb in DIR (scram-sha-256, a random superuser password, exported as
# PGPASSWORD), started on 127.0.0.1:PORT with any further `-c name=value` arguments; sets pgpid once it is ready.
start_fleet_postgres() {
  local dir=$1 port=$2; shift 2
  local pgbin=/usr/lib/postgresql/15/bin
  local password; password=$(head -c 24 /dev/urandom | base64 | tr -d '/+=')
  echo "$password" > "$dir/super.pass"
  chown -R postgres:postgres "$dir"
  setpriv --reuid=postgres --regid=postgres --init-groups -- \
    "$pgbin/initdb" -D "$dir/data" --auth=scram-sha-256 --pwfile="$dir/super.pass" -U postgres >/dev/null
  setpriv --reuid=postgres --regid=postgres --init-groups -- "$pgbin/postgres" -D "$dir/data" -c port="$port" \
    -c listen_addresses=127.0.0.1 -c unix_socket_directories="$dir" "$@" > "$dir/postgres.log" 2>&1 &
  pgpid=$!
  until "$pgbin/pg_isready" -q -h 127.0.0.1 -p "$port"; do sleep 0.2; done
  export PGPASSWORD=$password
}

# Simulated fleets through the real shipper (issue #53): FLEET_AGENTS (default "500 2000", one run each, side by side in
# one invocation) agents × FLEET_TARGETS (100) results every FLEET_INTERVAL (60 s) for FLEET_SECONDS (600), started over
# FLEET_STAGGER seconds (0: all at once), each agent a local store and a FleetShipper in the FleetBenchmarks process, shipping through pgbouncer (transaction pooling) into
# one PostgreSQL 15 made here (initdb, scram-sha-256). Prints shipping lag p99, rows lost and duplicated, and
# PostgreSQL's CPU and disk per million results. pgbouncer pools per (database, user) and every agent is its own
# role, so each agent's pool is tiny and idle server connections close after 2 s, under max_db_connections (200, below
# PostgreSQL's max_connections of 300). FLEET_BIN_DIR runs binaries from elsewhere (e.g. a debug smoke run with
# NO_BUILD=1).
run_fleet() {
  release --product netvigil
  release --product FleetBenchmarks
  local fbin=${FLEET_BIN_DIR:-$bin}
  local pgbin=/usr/lib/postgresql/15/bin
  local dir; dir=$(mktemp -d)
  chmod 755 "$dir"
  local pgport=${FLEET_PG_PORT:-18490}; local bport=$((pgport + 1))
  local as_postgres=(setpriv --reuid=postgres --regid=postgres --init-groups --)
  local pgpid bouncer=""
  start_fleet_postgres "$dir" "$pgport" -c max_connections=300
  # shellcheck disable=SC2064 # expanded now: the paths and pids of this run
  trap "[ -n \"\$bouncer\" ] && kill \$bouncer 2>/dev/null; kill -INT $pgpid 2>/dev/null; wait $pgpid 2>/dev/null; rm -rf '$dir'" RETURN
  # Each simulated agent holds a store (database, WAL, shared memory, readers) and a connection: raise the soft limit.
  ulimit -n "$(ulimit -Hn)" || true
  echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
  for agents in ${FLEET_AGENTS:-500 2000}; do
    local db=fleet_$agents run=$dir/run-$agents
    mkdir -p "$run"
    "$pgbin/psql" -qX -h 127.0.0.1 -p "$pgport" -U postgres -d postgres -c "CREATE DATABASE $db" >/dev/null
    "$fbin/netvigil" fleet migrate --postgres "postgres://postgres@127.0.0.1:$pgport/$db" >/dev/null
    "$fbin/FleetBenchmarks" provision --admin "postgres://postgres@127.0.0.1:$pgport/$db" --agents "$agents" --dir "$run" >/dev/null
    cat > "$run/pgbouncer.ini" <<INI
[databases]
$db = host=127.0.0.1 port=$pgport dbname=$db
[pgbouncer]
listen_addr = 127.0.0.1
listen_port = $bport
unix_socket_dir =
auth_type = scram-sha-256
auth_file = $run/userlist.txt
pool_mode = transaction
max_client_conn = $((agents + 100))
default_pool_size = 2
max_db_connections = 200
server_idle_timeout = 2
ignore_startup_parameters = extra_float_digits,options
INI
    chown -R postgres:postgres "$run"
    "${as_postgres[@]}" /usr/sbin/pgbouncer -q "$run/pgbouncer.ini" > "$run/pgbouncer.log" 2>&1 &
    bouncer=$!
    until (exec 3<>"/dev/tcp/127.0.0.1/$bport") 2>/dev/null; do sleep 0.2; done
    # PostgreSQL's CPU: the postmaster, its live children and the children it has reaped (cutime, cstime), in ticks.
    pg_ticks() {
      local total=0 pid
      for pid in $pgpid $(ps --ppid "$pgpid" -o pid=); do
        total=$((total + $(awk '{print $14 + $15}' "/proc/$pid/stat" 2>/dev/null || echo 0)))
      done
      echo $((total + $(awk '{print $16 + $17}' "/proc/$pgpid/stat")))
    }
    local ticks_before disk_before rows
    ticks_before=$(pg_ticks)
    disk_before=$(du -sb "$dir/data" | cut -f1)
    "$fbin/FleetBenchmarks" run --admin "postgres://postgres@127.0.0.1:$pgport/$db" --ship "postgres://127.0.0.1:$bport/$db" \
      --agents "$agents" --targets "${FLEET_TARGETS:-100}" --interval "${FLEET_INTERVAL:-60}" --seconds "${FLEET_SECONDS:-600}" \
      --stagger "${FLEET_STAGGER:-0}" --dir "$run"
    rows=$("$pgbin/psql" -qXAt -h 127.0.0.1 -p "$pgport" -U postgres -d "$db" -c "SELECT count(*) FROM probe_results")
    python3 - "$(( $(pg_ticks) - ticks_before ))" "$(getconf CLK_TCK)" "$(( $(du -sb "$dir/data" | cut -f1) - disk_before ))" "$rows" <<'PY'
import sys
ticks, hz, disk, rows = (int(v) for v in sys.argv[1:5])
cpu = ticks / hz
per = 1e6 / rows if rows else 0
print(f"postgres: {rows} rows, CPU {cpu:.1f} s ({cpu * per:.1f} s per million results), "
      f"disk +{disk / 1e6:.1f} MB ({disk / 1e6 * per:.1f} MB per million results)")
PY
    kill "$bouncer"; wait "$bouncer" 2>/dev/null || true; bouncer=""
  done
  echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
}

# The fleet view (issue #54): one PostgreSQL 15 made here holding FLEET_VIEW_AGENTS (500) agents in 25 sites ×
# FLEET_VIEW_ENDPOINTS (100) endpoints of latest results and 30 days of history at one result per
# FLEET_VIEW_HISTORY_HOURS (6) hours per agent and endpoint (full-rate history does not fit this machine's disk and
# session; the status route reads only latest_results, the endpoint route's uptime reads 7 days of one endpoint), and a
# real hub (`netvigil fleet serve`) reading it as a netvigil_hub member. Times GET /v1/fleet/status (each request
# more than a second after the previous one: past the hub's one-second cache, a fresh read and evaluation every time)
# and GET /v1/fleet/endpoint (the endpoint page's data), and reports the hub's own evaluation time.
run_fleet_view() {
  release --product netvigil
  local pgbin=/usr/lib/postgresql/15/bin
  local dir; dir=$(mktemp -d)
  chmod 755 "$dir"
  local pgport=${FLEET_PG_PORT:-18490} hubport=${FLEET_HUB_PORT:-18499}
  local agents=${FLEET_VIEW_AGENTS:-500} endpoints=${FLEET_VIEW_ENDPOINTS:-100} every=${FLEET_VIEW_HISTORY_HOURS:-6}
  local pgpid hubpid=""
  start_fleet_postgres "$dir" "$pgport"
  # shellcheck disable=SC2064 # expanded now: the paths and pids of this run
  trap "[ -n \"\$hubpid\" ] && kill \$hubpid 2>/dev/null; kill -INT $pgpid 2>/dev/null; wait $pgpid 2>/dev/null; rm -rf '$dir'" RETURN
  local admin="postgres://postgres@127.0.0.1:$pgport/postgres"
  "$bin/netvigil" fleet migrate --postgres "$admin" >/dev/null
  "$bin/netvigil" fleet add-hub hub --postgres "$admin" --password-file "$dir/hub.pass" >/dev/null
  local psql=("$pgbin/psql" -qX -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$pgport" -U postgres -d postgres)
  local started=$SECONDS
  "${psql[@]}" <<SQL
SELECT netvigil_ensure_partitions(current_date - 30, current_date);
INSERT INTO agents (agent, version, labels, targets, config_digest, last_seen)
  SELECT 'agent' || a, '0.1.0', jsonb_build_object('site', 'site' || (a % 25)), '[]', 'builtin',
         now() - CASE WHEN a % 100 = 0 THEN interval '1 hour' ELSE interval '0 seconds' END
  FROM generate_series(1, $agents) a;
INSERT INTO latest_results (agent, target, seq, time, outcome, error_kind, http_status, total_ms, trust_verdict,
                            pin_verdict, url, served_spki, served_issuer)
  SELECT 'agent' || a, 'ep' || e, 1000000, now() - interval '20 seconds',
         CASE WHEN e = 1 OR (e = 2 AND a % 25 = 3) THEN 'failed' ELSE 'ok' END,
         CASE WHEN e = 1 OR (e = 2 AND a % 25 = 3) THEN 'connectRefused' END,
         CASE WHEN e = 1 OR (e = 2 AND a % 25 = 3) THEN NULL ELSE 200 END, 20 + (a % 17), 'trusted',
         CASE WHEN e = 3 AND a % 25 = 7 THEN 'not_evaluated' ELSE 'matched' END,
         'https://endpoint' || e || '.example.net/',
         'sha256/' || encode(sha256(convert_to(CASE WHEN e = 3 AND a % 25 = 7 THEN 'mitm' ELSE 'key' || e END, 'UTF8')), 'base64'),
         CASE WHEN e = 3 AND a % 25 = 7 THEN 'CN=mitmproxy,O=mitmproxy' ELSE 'CN=Example CA' END
  FROM generate_series(1, $agents) a, generate_series(1, $endpoints) e;
INSERT INTO probe_results (agent, seq, time, target, url, outcome, total_ms, trust_verdict, pin_verdict, served_spki)
  SELECT 'agent' || a, (h * $endpoints + e), now() - make_interval(hours => h * $every), 'ep' || e,
         'https://endpoint' || e || '.example.net/', CASE WHEN (a + e + h) % 50 = 0 THEN 'failed' ELSE 'ok' END,
         20 + (a % 17), 'trusted', 'matched', 'sha256/' || encode(sha256(convert_to('key' || e, 'UTF8')), 'base64')
  FROM generate_series(1, $agents) a, generate_series(1, $endpoints) e, generate_series(0, 30 * 24 / $every - 1) h;
ANALYZE;
SQL
  local history; history=$("${psql[@]}" -At -c "SELECT count(*) FROM probe_results")
  echo "fleet view: $agents agents in 25 sites × $endpoints endpoints; history $history rows over 30 days (one per ${every} h per pair), loaded in $((SECONDS - started)) s; commit $(git rev-parse --short HEAD)"
  cat > "$dir/hub.yml" <<YAML
fleet:
  postgres: postgres://hub@127.0.0.1:$pgport/postgres
  password_file: $dir/hub.pass
  evaluate_every: 10s
feed: { listen: 127.0.0.1:$hubport }
YAML
  # The agents' heartbeats: every 10 s, as agents with `heartbeat: 10s` would (all but the five silent ones).
  ( while sleep 10; do
      "${psql[@]}" -c "UPDATE agents SET last_seen = now() WHERE last_seen > now() - interval '10 minutes'" || exit
    done ) &
  local beats=$!
  # The agents' results: each pair probed once a minute, as 500 × 100 targets at `interval: 60s` ship them
  # (~833 latest results rewritten a second, through the same trigger as the agents' upserts).
  ( tick=0; while sleep 1; do
      "${psql[@]}" -c "UPDATE latest_results SET seq = seq + 1, time = now() WHERE abs(hashtext(agent || '/' || target)) % 60 = $((tick % 60))" || exit
      tick=$((tick + 1))
    done ) &
  beats="$beats $!"
  "${psql[@]}" -c "UPDATE agents SET last_seen = now() WHERE last_seen > now() - interval '10 minutes'"
  "$bin/netvigil" fleet serve --config "$dir/hub.yml" > "$dir/hub.log" 2>&1 &
  hubpid="$! $beats"
  until curl -sf "http://127.0.0.1:$hubport/healthz" >/dev/null; do sleep 0.2; done
  python3 - "http://127.0.0.1:$hubport" "${hubpid%% *}" <<'PY'
import json, statistics, sys, time, urllib.parse, urllib.request
base, pid = sys.argv[1], sys.argv[2]
def timed(path):
    started = time.perf_counter()
    with urllib.request.urlopen(base + path) as response:
        body = response.read()
    return (time.perf_counter() - started) * 1000, body
def report(name, samples):
    samples.sort()
    p99 = samples[min(len(samples) - 1, int(len(samples) * 0.99))]
    print(f"RESULT fleet-view {name}: n={len(samples)} p50={statistics.median(samples):.1f} ms p99={p99:.1f} ms max={samples[-1]:.1f} ms")
status = []
for _ in range(20):
    time.sleep(1.2)
    ms, body = timed("/v1/fleet/status")
    status.append(ms)
document = json.loads(body)
summary = document["summary"]
print(f"status document: {len(body) / 1e6:.2f} MB, {summary['agents']} agents ({summary['silent']} silent), "
      f"{summary['endpoints']} endpoints ({summary['down']} down, {summary['partial']} partial), {summary['interceptions']} interceptions")
report("GET /v1/fleet/status (fresh read)", status)
endpoint = []
for index in range(10):
    quoted = urllib.parse.quote(f"https://endpoint{index + 1}.example.net/", safe="")
    ms, _ = timed(f"/v1/fleet/endpoint?endpoint={quoted}")
    endpoint.append(ms)
report("GET /v1/fleet/endpoint (uptime 24 h and 7 days)", endpoint)
metrics = urllib.request.urlopen(base + "/metrics").read().decode()
evaluation = [l for l in metrics.splitlines() if l.startswith("netvigil_fleet_evaluation_seconds ")]
print("hub evaluation (read, decide, write alerts):", evaluation[0].split()[-1] if evaluation else "?", "s")
with open(f"/proc/{pid}/status") as f:
    fields = dict(line.split(":", 1) for line in f)
print(f"hub memory: RssAnon {fields['RssAnon'].strip()}")
PY
}

case "$what" in
  store) run_store ;;
  overview) run_overview ;;
  scheduler) run_scheduler ;;
  idle) run_idle ;;
  probe) run_probe ;;
  probe-tls) run_probe_tls ;;
  startup) run_startup ;;
  probe-trust) run_probe_trust ;;
  probe-h2) run_probe_h2 ;;
  scale) run_scale ;;
  status) run_status ;;
  reload) run_reload ;;
  fleet) run_fleet ;;
  fleet-view) run_fleet_view ;;
  all) run_store; run_overview; run_scheduler; run_idle; run_probe ;;
  *) echo "unknown benchmark: $what" >&2; exit 64 ;;
esac
