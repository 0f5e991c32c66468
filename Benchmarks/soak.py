"""The soak driver behind soak.sh: starts nginx, hostile servers, the daemon and the feed clients, samples every
minute and prints the trend. Everything runs on loopback in a temporary directory that is removed at the end."""
import atexit, datetime, json, os, random, shutil, signal, socket, sqlite3, ssl, subprocess, sys, tempfile, threading, time, urllib.request
import h2.config, h2.connection, h2.events
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

binary, minutes = os.path.abspath(sys.argv[1]), int(sys.argv[2])
flood_from = int(sys.argv[3]) if len(sys.argv) > 3 else minutes // 3 + 1  # first minute of the 1xx floods
work = tempfile.mkdtemp(prefix="netvigil-soak-")
stop = threading.Event()
children = []

signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # so atexit stops the daemon and nginx too

@atexit.register
def clean_up():
    stop.set()
    for child in children:
        if child.poll() is None: child.kill()
    shutil.rmtree(work, ignore_errors=True)

def free_port():
    s = socket.socket(); s.bind(("127.0.0.1", 0)); port = s.getsockname()[1]; s.close(); return port

nginx_port, feed_port = free_port(), free_port()
os.makedirs(f"{work}/nginx/logs")
with open(f"{work}/nginx/nginx.conf", "w") as f:
    f.write(f"""daemon off; pid {work}/nginx/pid; error_log {work}/nginx/logs/error.log; worker_processes 1;
events {{ worker_connections 1024; }}
http {{ access_log off; client_body_temp_path {work}/nginx/b; proxy_temp_path {work}/nginx/p;
  fastcgi_temp_path {work}/nginx/f; uwsgi_temp_path {work}/nginx/u; scgi_temp_path {work}/nginx/s;
  server {{ listen 127.0.0.1:{nginx_port}; location / {{ return 200 'up'; }} }} }}""")
nginx = subprocess.Popen(["/usr/sbin/nginx", "-p", f"{work}/nginx", "-c", f"{work}/nginx/nginx.conf"])
children.append(nginx)

# Hostile servers: a black hole and a 60 KB Location redirect.
blackhole_port, redirect_port, closed_port = free_port(), free_port(), free_port()
held = []
def blackhole():
    server = socket.socket(); server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind(("127.0.0.1", blackhole_port)); server.listen(256); server.settimeout(1)
    while not stop.is_set():
        try: held.append(server.accept()[0])
        except OSError: pass
        if len(held) > 200: held.pop(0).close()
threading.Thread(target=blackhole, daemon=True).start()
class Redirect(BaseHTTPRequestHandler):
    def log_message(self, *a): pass
    def do_GET(self):
        self.send_response(302); self.send_header("Location", "/" + "x" * 60_000); self.send_header("Content-Length", "0"); self.end_headers()
threading.Thread(target=ThreadingHTTPServer(("127.0.0.1", redirect_port), Redirect).serve_forever, daemon=True).start()

# 1xx floods (HTTP/1.1 and HTTP/2 over TLS): until minute `flood_from` they answer 200 at once, so that the same
# targets with the same configuration give the baseline; then every response is an endless stream of 103 Early Hints.
flooding = threading.Event()
h1_flood_port, h2_flood_port = free_port(), free_port()
subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "2",
                "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", f"{work}/flood.key",
                "-out", f"{work}/flood.pem"], check=True, capture_output=True)
def serve(port, handle, tls=None):
    server = socket.socket(); server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind(("127.0.0.1", port)); server.listen(64)
    def accept():
        while not stop.is_set():
            connection = server.accept()[0]
            threading.Thread(target=handle, args=(connection, tls), daemon=True).start()
    threading.Thread(target=accept, daemon=True).start()
def h1_flood(connection, _):
    try:
        connection.settimeout(30); connection.recv(65536)
        if not flooding.is_set():
            connection.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nup"); return
        hint = b"HTTP/1.1 103 Early Hints\r\nLink: </style.css>; rel=preload; as=style\r\n\r\n"
        while not stop.is_set(): connection.sendall(hint * 64)
    except OSError: pass
    finally: connection.close()
def h2_flood(connection, context):
    try:
        connection.settimeout(30); connection = context.wrap_socket(connection, server_side=True)
        h2c = h2.connection.H2Connection(h2.config.H2Configuration(client_side=False, header_encoding="utf-8"))
        h2c.initiate_connection(); connection.sendall(h2c.data_to_send())
        while not stop.is_set():
            data = connection.recv(65536)
            if not data: return
            for event in h2c.receive_data(data):
                if not isinstance(event, h2.events.RequestReceived): continue
                if not flooding.is_set():
                    h2c.send_headers(event.stream_id, [(":status", "200"), ("content-length", "2")])
                    h2c.send_data(event.stream_id, b"up", end_stream=True); connection.sendall(h2c.data_to_send()); continue
                while not stop.is_set():
                    for _ in range(64): h2c.send_headers(event.stream_id, [(":status", "103"), ("link", "</style.css>; rel=preload")])
                    connection.sendall(h2c.data_to_send())
            connection.sendall(h2c.data_to_send())
    except Exception: pass
    finally: connection.close()
h2_context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER); h2_context.load_cert_chain(f"{work}/flood.pem", f"{work}/flood.key")
h2_context.set_alpn_protocols(["h2"])
serve(h1_flood_port, h1_flood); serve(h2_flood_port, h2_flood, h2_context)

targets = [f"  - {{ name: ok{i}, url: \"http://127.0.0.1:{nginx_port}/h{i}\", interval: 2s, timeout: 2s }}" for i in range(40)]
targets += [f"  - {{ name: hang, url: \"http://127.0.0.1:{blackhole_port}/\", interval: 5s, timeout: 4s }}",
            f"  - {{ name: closed, url: \"http://127.0.0.1:{closed_port}/\", interval: 5s, timeout: 2s }}",
            f"  - {{ name: biglocation, url: \"http://127.0.0.1:{redirect_port}/\", interval: 5s, timeout: 2s }}"]
targets += [f"  - {{ name: flood1-{i}, url: \"http://127.0.0.1:{h1_flood_port}/f{i}\", interval: 10s, timeout: 10s }}" for i in range(2)]
targets += [f"  - {{ name: flood2-{i}, url: \"https://127.0.0.1:{h2_flood_port}/f{i}\", interval: 10s, timeout: 10s, http_version: \"2\", "
            f"tls: {{ ca: [{work}/flood.pem] }} }}" for i in range(2)]
with open(f"{work}/netvigil.yml", "w") as f:
    f.write(f"storage: {{ path: {work}/n.sqlite }}\nfeed: {{ listen: 127.0.0.1:{feed_port} }}\nlog: {{ level: error }}\n"
            "targets:\n" + "\n".join(targets) + "\n")
log = open(f"{work}/daemon.log", "w")
daemon = subprocess.Popen([binary, "run", "--config", f"{work}/netvigil.yml"], stdout=log, stderr=log, cwd=work)
children.insert(0, daemon)

def get(path, timeout=5):
    with urllib.request.urlopen(f"http://127.0.0.1:{feed_port}{path}", timeout=timeout) as r: return r.read()
for _ in range(100):
    try: get("/healthz"); break
    except Exception: time.sleep(0.1)

# Feed clients.
def churn():
    while not stop.is_set():
        try:
            s = socket.create_connection(("127.0.0.1", feed_port), timeout=5)
            s.sendall(b"GET /v1/events HTTP/1.1\r\nHost: f\r\n\r\n"); s.settimeout(random.choice([0.01, 0.1, 1])); s.recv(4096)
            s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\0\0\0\0\0\0\0"); s.close()
        except OSError: pass
        time.sleep(0.02)
def stalled():
    sockets = []
    for _ in range(50):
        s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        s.connect(("127.0.0.1", feed_port)); s.sendall(b"GET /v1/events HTTP/1.1\r\nHost: f\r\n\r\n"); sockets.append(s)
    stop.wait()
def slow_export():
    while not stop.is_set():
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{feed_port}/v1/export", timeout=60) as r:
                while not stop.is_set() and r.read(1024): time.sleep(1)
        except Exception: time.sleep(1)
def idle_bursts():
    while not stop.wait(300):
        burst = []
        for _ in range(300):
            s = socket.socket(); s.setblocking(False)
            try: s.connect(("127.0.0.1", feed_port))
            except BlockingIOError: pass
            burst.append(s)
        stop.wait(20)
        for s in burst: s.close()
for worker in [churn, churn, stalled, slow_export, slow_export, idle_bursts]:
    threading.Thread(target=worker, daemon=True).start()

ticks = os.sysconf("SC_CLK_TCK")
def cpu_seconds(pid):
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / ticks  # utime + stime

def healthy_latency(since_ms):
    """p50 and p99 of the healthy targets' total time since `since_ms`, read from the daemon's own store."""
    with sqlite3.connect(f"file:{work}/n.sqlite?mode=ro", uri=True, timeout=5) as db:
        values = sorted(v for (v,) in db.execute(
            "SELECT total_ms FROM probe_results WHERE target LIKE 'ok%' AND outcome = 'ok' AND time_ms >= ?", (since_ms,)))
        floods = dict(db.execute("SELECT COALESCE(error_kind, outcome), COUNT(*) FROM probe_results "
                                 "WHERE target LIKE 'flood%' AND time_ms >= ? GROUP BY 1", (since_ms,)).fetchall())
    pick = lambda q: values[min(len(values) - 1, int(q * len(values)))] if values else float("nan")
    return pick(0.5), pick(0.99), len(values), floods

def sample():
    pid = daemon.pid
    status = {l.split(":")[0]: l.split()[1] for l in open(f"/proc/{pid}/status") if l.startswith(("VmRSS:", "RssAnon:"))}
    rss, anon = int(status["VmRSS"]) / 1024, int(status["RssAnon"]) / 1024
    fds = len(os.listdir(f"/proc/{pid}/fd"))
    wal = os.path.getsize(f"{work}/n.sqlite-wal") / 2**20 if os.path.exists(f"{work}/n.sqlite-wal") else 0
    status = json.loads(get("/v1/status"))
    now = time.time()
    late = 0.0
    for t in status["targets"]:
        if t["name"].startswith("ok") and t.get("last_probe_at"):
            at = datetime.datetime.fromisoformat(t["last_probe_at"].replace("Z", "+00:00")).timestamp()
            late = max(late, now - at - t["interval_seconds"])
    health = "ok"
    try: get("/healthz")
    except Exception as error: health = f"FAIL {error}"
    return rss, anon, fds, wal, max(0.0, late), health

def slope(values):
    n = len(values); xs = range(n); mx = sum(xs) / n; my = sum(values) / n
    d = sum((x - mx) ** 2 for x in xs)
    return 0.0 if d == 0 else sum((x - mx) * (y - my) for x, y in zip(xs, values)) / d * 60

def mean(values): return sum(values) / len(values) if values else float("nan")

rows, phases = [], {"baseline": [], "1xx floods": []}
print(f"1xx floods from minute {flood_from}", flush=True)
print("minute  rss_MiB  anon_MiB  fds  wal_MiB  max_lateness_s  cpu_s  ok_p50_ms  ok_p99_ms  load1  healthz  flood_results", flush=True)
cpu_before = cpu_seconds(daemon.pid)
for minute in range(1, minutes + 1):
    if minute == flood_from: flooding.set()
    minute_start_ms = int(time.time() * 1000)
    time.sleep(60)
    if daemon.poll() is not None: print(f"daemon exited with {daemon.returncode}"); break
    rss, anon, fds, wal, late, health = sample()
    cpu_now = cpu_seconds(daemon.pid); cpu = cpu_now - cpu_before; cpu_before = cpu_now
    p50, p99, count, floods = healthy_latency(minute_start_ms)
    rows.append((rss, fds, wal, late, anon))
    if minute > 1: phases["1xx floods" if minute >= flood_from else "baseline"].append((cpu, p50, p99))
    load = open("/proc/loadavg").read().split()[0]
    print(f"{minute:6d}  {rss:7.1f}  {anon:8.1f}  {fds:3d}  {wal:7.1f}  {late:14.2f}  {cpu:5.2f}  {p50:9.2f}  {p99:9.2f}  {load:>5}  "
          f"{health}  {json.dumps(floods, sort_keys=True)}", flush=True)
if len(rows) > 2:
    steady = rows[len(rows) // 3:]  # after warm-up
    print(f"slopes over minutes {len(rows) - len(steady) + 1}-{len(rows)} (per hour): RSS {slope([r[0] for r in steady]):+.1f} MiB "
          f"(anonymous {slope([r[4] for r in steady]):+.1f} MiB), "
          f"fds {slope([r[1] for r in steady]):+.1f}, WAL {slope([r[2] for r in steady]):+.1f} MiB; "
          f"max lateness {max(r[3] for r in rows):.2f} s; peak RSS {max(r[0] for r in rows):.1f} MiB, peak WAL {max(r[2] for r in rows):.1f} MiB")
for name, values in phases.items():
    if values:
        print(f"{name} (minutes after the first): daemon CPU {mean([v[0] for v in values]):.2f} s per minute "
              f"({mean([v[0] for v in values]) / 60 * 100:.1f} % of a core); healthy targets' median p50 "
              f"{sorted(v[1] for v in values)[len(values) // 2]:.2f} ms, median p99 {sorted(v[2] for v in values)[len(values) // 2]:.2f} ms, "
              f"worst p99 {max(v[2] for v in values):.2f} ms", flush=True)
stop.set()
start = time.time(); daemon.send_signal(signal.SIGTERM); daemon.wait(15)
print(f"SIGTERM: exited {daemon.returncode} after {time.time() - start:.2f} s")
