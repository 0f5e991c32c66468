/// python3 scripts that play hostile feed clients and servers against the daemon.
enum HostileClients {
    /// `churn.py PORT CYCLES CONCURRENCY`: each cycle opens `/v1/events`, reads the head and maybe a little, then
    /// aborts the connection with a reset. Prints `cycles=N errors=N refused=N`.
    static let churn = #"""
        import random, socket, sys, threading
        port, cycles, concurrency = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
        counts = {"cycles": 0, "errors": 0, "refused": 0}
        lock = threading.Lock()
        def cycle():
            s = socket.create_connection(("127.0.0.1", port), timeout=10)
            s.sendall(b"GET /v1/events HTTP/1.1\r\nHost: feed\r\n\r\n")
            head = b""
            while b"\r\n\r\n" not in head:
                chunk = s.recv(4096)
                if not chunk: break
                head += chunk
            if b" 503 " in head.split(b"\r\n")[0]:
                with lock: counts["refused"] += 1
            s.settimeout(random.choice([0.001, 0.01, 0.05]))
            try: s.recv(4096)
            except OSError: pass
            s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\0\0\0\0\0\0\0")
            s.close()
        def worker(n):
            for _ in range(n):
                try: cycle()
                except OSError:
                    with lock: counts["errors"] += 1
                with lock: counts["cycles"] += 1
        threads = [threading.Thread(target=worker, args=(cycles // concurrency,)) for _ in range(concurrency)]
        for t in threads: t.start()
        for t in threads: t.join()
        print(" ".join(f"{k}={v}" for k, v in counts.items()), flush=True)
        """#

    /// `stall.py PORT CLIENTS HOLD`: opens CLIENTS `/v1/events` streams with tiny receive buffers and never reads
    /// them; prints `ok=N refused=N other=N` once they have answered, holds them HOLD seconds, then closes them.
    static let stall = #"""
        import resource, socket, sys, time
        hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
        port, clients, hold = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
        sockets = []
        for _ in range(clients):
            s = socket.socket()
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            s.connect(("127.0.0.1", port))
            s.sendall(b"GET /v1/events HTTP/1.1\r\nHost: feed\r\n\r\n")
            sockets.append(s)
        counts = {"ok": 0, "refused": 0, "other": 0}
        deadline = time.time() + 20
        for s in sockets:
            s.settimeout(max(0.1, deadline - time.time()))
            try:
                line = s.recv(64).split(b"\r\n")[0]
                counts["ok" if b" 200 " in line else "refused" if b" 503 " in line else "other"] += 1
            except OSError:
                counts["other"] += 1
        print(" ".join(f"{k}={v}" for k, v in counts.items()), flush=True)
        time.sleep(hold)
        for s in sockets: s.close()
        print("closed", flush=True)
        """#

    /// `idle.py PORT CONNECTIONS HOLD`: opens CONNECTIONS TCP connections that never send a byte (as fast as the
    /// kernel accepts them), prints `opened=N`, holds them HOLD seconds.
    static let idle = #"""
        import resource, socket, sys, time
        hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
        port, connections, hold = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
        sockets = []
        for _ in range(connections):
            s = socket.socket()
            s.setblocking(False)
            try: s.connect(("127.0.0.1", port))
            except BlockingIOError: pass
            sockets.append(s)
        print(f"opened={len(sockets)}", flush=True)
        time.sleep(hold)
        for s in sockets: s.close()
        print("closed", flush=True)
        """#

    /// `blackhole.py PORT`: accepts connections and never answers (holds them until the script is killed).
    static let blackhole = #"""
        import socket, sys
        server = socket.socket(); server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        server.bind(("127.0.0.1", int(sys.argv[1]))); server.listen(512)
        held = []
        while True:
            connection, _ = server.accept()
            held.append(connection)
        """#

    /// `receiver.py PORT FILE`: a webhook receiver appending one JSON line per POST (Idempotency-Key and body).
    static let receiver = #"""
        import json, sys
        from http.server import ThreadingHTTPServer, BaseHTTPRequestHandler
        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args): pass
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                with open(sys.argv[2], "a") as f:
                    f.write(json.dumps({"key": self.headers.get("Idempotency-Key"), "body": json.loads(body)}) + "\n")
                self.send_response(200); self.send_header("Content-Length", "0"); self.end_headers()
        ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Handler).serve_forever()
        """#
}
