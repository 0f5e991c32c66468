"""SIGHUP reloads of quiet daemons, one per binary, reloaded in turn (bash Benchmarks/run.sh reload).

Each daemon gets its own directory, feed port and the same TARGETS targets (`interval: 10m`, a port nothing listens
on, so after their first ticks the daemons are idle). A round sends SIGHUP to each daemon in turn and times it until
its log says `configuration reloaded`; the binaries alternate, so the machine's drift falls on all of them alike.
"""
import argparse, os, signal, statistics, subprocess, sys, tempfile, time, urllib.request

parser = argparse.ArgumentParser()
parser.add_argument("--targets", type=int, default=10000)
parser.add_argument("--rounds", type=int, default=8)
parser.add_argument("--settle", type=float, default=20, help="seconds after /healthz answers before the first reload")
parser.add_argument("binaries", nargs="+")
arguments = parser.parse_args()

root = tempfile.mkdtemp(prefix="netvigil-reload-")
daemons = []
try:
    for index, binary in enumerate(arguments.binaries):
        directory = os.path.join(root, f"d{index}")
        os.makedirs(directory)
        port = 18830 + index
        with open(os.path.join(directory, "n.yml"), "w") as config:
            config.write(f"storage: {{ path: {directory}/n.sqlite }}\nfeed: {{ listen: 127.0.0.1:{port} }}\n"
                         "log: { level: notice }\ntargets:\n")
            for target in range(arguments.targets):
                config.write(f'  - {{ name: t{target}, url: "https://127.0.0.1:18829/?t={target}", interval: 10m }}\n')
        log = os.path.join(directory, "daemon.log")
        process = subprocess.Popen([binary, "run", "--config", os.path.join(directory, "n.yml")],
                                   stdout=subprocess.DEVNULL, stderr=open(log, "w"))
        daemons.append((binary, process, log, port))
    for binary, process, log, port in daemons:
        deadline = time.monotonic() + 120
        while True:
            if process.poll() is not None: sys.exit(f"reload: {binary} exited: {open(log).read()[-500:]}")
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=5): break
            except OSError:
                pass
            if time.monotonic() > deadline: sys.exit(f"reload: {binary} not up after 120 s")
            time.sleep(0.2)
    time.sleep(arguments.settle)
    times = {binary: [] for binary, *_ in daemons}
    for _ in range(arguments.rounds):
        for binary, process, log, _ in daemons:
            before = open(log).read().count("configuration reloaded")
            start = time.monotonic()
            process.send_signal(signal.SIGHUP)
            while open(log).read().count("configuration reloaded") == before:
                if time.monotonic() - start > 60: sys.exit(f"reload: {binary} did not reload within 60 s")
                time.sleep(0.005)
            times[binary].append((time.monotonic() - start) * 1000)
            time.sleep(2)
    for binary, values in times.items():
        print(f"{binary}: reload of {arguments.targets} targets {min(values):.0f}-{max(values):.0f} ms, "
              f"median {statistics.median(values):.0f} ms ({' '.join(f'{v:.0f}' for v in values)})")
    first = arguments.binaries[0]
    print(f"RESULT reload targets={arguments.targets} rounds={arguments.rounds} "
          f"median_ms={statistics.median(times[first]):.0f}"
          + "".join(f" baseline{i}_ms={statistics.median(times[b]):.0f}" for i, b in enumerate(arguments.binaries[1:], 1)))
finally:
    for _, process, _, _ in daemons:
        process.send_signal(signal.SIGTERM)
    for _, process, _, _ in daemons:
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
    subprocess.run(["rm", "-rf", root])
