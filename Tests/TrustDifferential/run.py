#!/usr/bin/env python3
"""Trust differential test: netvigil's verdict on each generated chain against five real validators.

    python3 run.py --netvigil PATH [--cases DIR] [--splits FILE] [--only NAME]... [--verbose]

Generates the cases (generate.py; into a temporary directory unless --cases is given), asks OpenSSL (`openssl
verify`), Go (crypto/x509, verify.go), pyca/cryptography (x509.verification), GnuTLS (gnutls-cli) and NSS (tstclnt)
whether each chain is good for its host, then `netvigil trust evaluate`. GnuTLS and NSS judge the chain as served by
`openssl s_server` on loopback; a case with a fixed evaluation time runs them under libfaketime.

Prints a table and `N passed, M failed`. Exits 1 when netvigil disagrees with the validators' majority on a case
that splits.json does not list, differs from the verdict splits.json decides for a listed case, trusts a chain every
validator refuses (listed or not), fails to give a verdict, when any validator cannot run, or when fewer than 60
cases were judged (a full run; --only skips that minimum).
"""
import argparse
import concurrent.futures
import ctypes
import datetime
import glob
import ipaddress
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

# `make test-deps` puts cryptography >= 42 here when python3's own is older (Debian 12's python3-cryptography is 38).
_LIBRARY = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), ".build",
                        "trustdiff-python")
if os.path.isdir(_LIBRARY) and _LIBRARY not in sys.path:
    sys.path.insert(0, _LIBRARY)

VALIDATORS = ["openssl", "go", "pyca", "gnutls", "nss"]
MINIMUM_CASES = 60
TIMEOUT = 30


class OracleError(Exception):
    """A validator (or netvigil) could not give a verdict: the harness fails, never skips."""


# ---------------------------------------------------------------------------------------------------------------
# Preconditions.

def require_cryptography():
    try:
        import cryptography
        from cryptography.x509 import verification  # noqa: F401
    except ImportError as error:
        raise SystemExit("run.py: python3 needs cryptography >= 42 with cryptography.x509.verification (%s); "
                         "`make test-deps` installs it into .build/trustdiff-python" % error)
    major = int(cryptography.__version__.split(".")[0])
    if major < 42:
        raise SystemExit("run.py: python3 (%s) imports cryptography %s from %s; the pyca validator needs >= 42 "
                         "(`make test-deps` installs it into .build/trustdiff-python)" % (sys.executable, cryptography.__version__,
                                                                     os.path.dirname(cryptography.__file__)))


def faketime_library():
    found = sorted(glob.glob("/usr/lib/*/faketime/libfaketime.so.1") + glob.glob("/usr/lib/faketime/libfaketime.so.1"))
    return found[0] if found else None


def require_tools():
    missing = [tool for tool, package in [("openssl", "openssl"), ("go", "golang-go"), ("gnutls-cli", "gnutls-bin"),
                                         ("certutil", "libnss3-tools"), ("tstclnt", "libnss3-tools"),
                                         ("mkcert", "mkcert"), ("cfssl", "golang-cfssl")]
               if shutil.which(tool) is None]
    messages = ["%s (apt-get install %s)" % (tool, {"go": "golang-go", "gnutls-cli": "gnutls-bin",
                                                   "certutil": "libnss3-tools", "tstclnt": "libnss3-tools",
                                                   "cfssl": "golang-cfssl"}.get(tool, tool)) for tool in missing]
    if not os.path.exists("/usr/share/easy-rsa/easyrsa"):
        messages.append("easyrsa (apt-get install easy-rsa)")
    if faketime_library() is None:
        messages.append("libfaketime (apt-get install faketime)")
    if messages:
        raise SystemExit("run.py: missing tools: " + ", ".join(messages))


# ---------------------------------------------------------------------------------------------------------------
# Cases on disk.

class Case:
    def __init__(self, directory):
        self.directory = directory
        with open(os.path.join(directory, "case.json")) as f:
            meta = json.load(f)
        self.name, self.host, self.tool = meta["name"], meta["host"], meta["tool"]
        self.description = meta.get("description", "")
        self.at = meta.get("at")
        self.when = datetime.datetime.strptime(self.at, "%Y-%m-%dT%H:%M:%SZ").replace(
            tzinfo=datetime.timezone.utc) if self.at else None
        try:
            self.ip = ipaddress.ip_address(self.host)
        except ValueError:
            self.ip = None
        blocks = split_pem(os.path.join(directory, "chain.pem"))
        self.leaf = self.path("leaf.pem")
        self.rest = self.path("untrusted.pem") if len(blocks) > 1 else None
        with open(self.leaf, "w") as f:
            f.write(blocks[0])
        if self.rest:
            with open(self.rest, "w") as f:
                f.write("".join(blocks[1:]))
        self.anchor_files = []
        for index, block in enumerate(split_pem(self.path("anchors.pem"))):
            path = self.path("anchor-%d.pem" % index)
            with open(path, "w") as f:
                f.write(block)
            self.anchor_files.append(path)

    def path(self, name):
        return os.path.join(self.directory, name)


def split_pem(path):
    blocks, current = [], None
    with open(path) as f:
        for line in f:
            if line.startswith("-----BEGIN CERTIFICATE-----"):
                current = [line]
            elif current is not None:
                current.append(line)
                if line.startswith("-----END CERTIFICATE-----"):
                    blocks.append("".join(current))
                    current = None
    if not blocks:
        raise OracleError("%s holds no certificate" % path)
    return blocks


def run(arguments, env=None, timeout=TIMEOUT, stdin=subprocess.DEVNULL):
    try:
        return subprocess.run(arguments, env=env, stdin=stdin, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise OracleError("%s did not finish within %d s" % (" ".join(arguments[:3]), timeout))
    except FileNotFoundError:
        raise OracleError("%s is not installed" % arguments[0])


def last_line(text, *markers):
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    for marker in markers:
        for line in lines:
            if marker in line:
                return line
    return lines[-1] if lines else ""


# ---------------------------------------------------------------------------------------------------------------
# Validators. Each returns ("accept" | "refuse", reason) or raises OracleError.

def oracle_openssl(case, context):
    arguments = ["openssl", "verify", "-no-CApath", "-no-CAstore", "-purpose", "sslserver", "-CAfile",
                 case.path("anchors.pem")]
    arguments += ["-verify_ip", case.host] if case.ip else ["-verify_hostname", case.host]
    if case.rest:
        arguments += ["-untrusted", case.rest]
    if case.when:
        arguments += ["-attime", str(int(case.when.timestamp()))]
    result = run(arguments + [case.leaf])
    output = result.stdout + result.stderr
    if result.returncode == 0 and ": OK" in result.stdout:
        return "accept", "OK"
    if "error" not in output:
        raise OracleError("openssl verify: unexpected output: %s" % output.strip()[-300:])
    return "refuse", last_line(output, "error ", "error:")


def oracle_go(case, context):
    arguments = [context["go_verify"], case.path("chain.pem"), case.path("anchors.pem"), case.host]
    if case.at:
        arguments.append(case.at)
    result = run(arguments)
    if result.returncode == 0 and result.stdout.strip() == "accept":
        return "accept", "ok"
    if result.returncode == 1 and result.stdout.startswith("refuse: "):
        return "refuse", result.stdout[len("refuse: "):].strip()
    raise OracleError("verify.go: exit %d: %s" % (result.returncode, (result.stdout + result.stderr).strip()[-300:]))


def oracle_pyca(case, context):
    from cryptography import x509
    from cryptography.x509 import verification
    try:
        with open(case.path("chain.pem"), "rb") as f:
            chain = x509.load_pem_x509_certificates(f.read())
        with open(case.path("anchors.pem"), "rb") as f:
            anchors = x509.load_pem_x509_certificates(f.read())
    except ValueError as error:
        return "refuse", "parse: %s" % error
    try:
        builder = verification.PolicyBuilder().store(verification.Store(anchors))
        if case.when:
            builder = builder.time(case.when.replace(tzinfo=None))
        subject = x509.IPAddress(case.ip) if case.ip else x509.DNSName(case.host)
        builder.build_server_verifier(subject).verify(chain[0], chain[1:])
    except verification.VerificationError as error:
        return "refuse", str(error).replace("\n", " ")
    except ValueError as error:
        return "refuse", "policy: %s" % error
    return "accept", "ok"


def faketime_env(case, context):
    env = dict(os.environ)
    if case.when:
        env.update({"LD_PRELOAD": context["faketime"], "FAKETIME": case.when.strftime("%Y-%m-%d %H:%M:%S"),
                    "TZ": "UTC", "FAKETIME_DONT_FAKE_MONOTONIC": "1", "FAKETIME_NO_CACHE": "1"})
    return env


def connect_host(case):
    return str(case.ip) if case.ip and case.ip.version == 4 and case.ip.is_loopback else "127.0.0.1"


def oracle_gnutls(case, context):
    arguments = ["gnutls-cli", "--x509cafile", case.path("anchors.pem"), "--port", str(context["port"]),
                 "--verify-hostname", case.host]
    if not case.ip:
        arguments += ["--sni-hostname", case.host]
    result = run(arguments + [connect_host(case)], env=faketime_env(case, context))
    output = result.stdout + result.stderr
    if "Could not connect" in output or "Connection refused" in output:
        raise OracleError("gnutls-cli could not connect to the test server: %s" % last_line(output))
    status = last_line(output, "- Status:")
    if result.returncode == 0 and "The certificate is trusted." in output:
        return "accept", "trusted"
    if "- Status:" in status:
        return "refuse", status.replace("- Status: ", "")
    return "refuse", last_line(output, "*** Fatal error", "Handshake failed", "*** ")


def oracle_nss(case, context):
    database = tempfile.mkdtemp(prefix="nss-", dir=case.directory)
    try:
        result = run(["certutil", "-N", "--empty-password", "-d", "sql:" + database])
        if result.returncode != 0:
            raise OracleError("certutil -N: %s" % (result.stdout + result.stderr).strip())
        for index, anchor in enumerate(case.anchor_files):
            result = run(["certutil", "-A", "-t", "C,,", "-n", "anchor%d" % index, "-i", anchor,
                          "-d", "sql:" + database])
            if result.returncode != 0:
                output = (result.stdout + result.stderr).strip()
                if "SEC_ERROR_ADDING_CERT" in output:
                    # NSS cannot hold this anchor at all (e.g. an Ed25519 key): nothing it could trust.
                    return "refuse", "certutil cannot import the anchor: " + last_line(output, "SEC_ERROR")
                raise OracleError("certutil -A %s: %s" % (anchor, output))
        arguments = ["tstclnt", "-h", connect_host(case), "-p", str(context["port"]), "-d", "sql:" + database, "-Q"]
        if not case.ip:
            arguments += ["-a", case.host]
        result = run(arguments, env=faketime_env(case, context))
    finally:
        shutil.rmtree(database, ignore_errors=True)
    output = result.stdout + result.stderr
    if "PR_CONNECT_REFUSED_ERROR" in output:
        raise OracleError("tstclnt could not connect to the test server: %s" % last_line(output))
    if result.returncode == 0:
        return "accept", "ok"
    return "refuse", last_line(output, "authentication of server cert failed", "tstclnt:").replace("tstclnt: ", "")


# ---------------------------------------------------------------------------------------------------------------
# The test server for GnuTLS and NSS.

class Ports:
    """Ports outside the kernel's ephemeral range, never twice in one run, free on a bind a moment ago."""

    def __init__(self):
        try:
            with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
                low, high = (int(x) for x in f.read().split())
        except (OSError, ValueError):
            low, high = 32768, 60999
        self.range = range(20000, low) if low >= 21000 else (range(high + 1, 65536) if high <= 64536
                                                             else range(20000, 21000))
        self.next = os.getpid() % len(self.range)
        self.lock = threading.Lock()

    def take(self, address):
        with self.lock:
            for _ in range(len(self.range)):
                port = self.range[self.next % len(self.range)]
                self.next += 1
                with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
                    try:
                        s.bind((address, port))
                        return port
                    except OSError:
                        continue
        raise OracleError("no free TCP port in %s" % self.range)


def die_with_parent():
    """In the server's child process: SIGKILL when the thread that started it goes (a harness killed by a test's
    timeout leaves no server behind)."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


class Server:
    """`openssl s_server` serving the case's chain exactly as chain.pem orders it, on loopback."""

    def __init__(self, case, ports):
        self.case, self.address = case, connect_host(case)
        self.port = ports.take(self.address)
        arguments = ["openssl", "s_server", "-accept", "%s:%d" % (self.address, self.port), "-cert", case.leaf,
                     "-key", case.path("leaf.key"), "-www", "-quiet", "-no_dhe",
                     # Weak keys and SHA-1 are the client's to refuse: the server serves whatever the case holds.
                     "-cipher", "DEFAULT:@SECLEVEL=0"]
        if case.rest:
            arguments += ["-cert_chain", case.rest]
        self.log = open(case.path("server.log"), "w")
        self.process = subprocess.Popen(arguments, stdin=subprocess.DEVNULL, stdout=self.log, stderr=self.log,
                                        preexec_fn=die_with_parent)

    def wait_listening(self, timeout=10):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                break
            with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
                s.settimeout(0.5)
                if s.connect_ex((self.address, self.port)) == 0:
                    return
            time.sleep(0.05)
        self.stop()
        with open(self.case.path("server.log")) as f:
            log = f.read().strip()
        raise OracleError("openssl s_server for %s did not listen on %s:%d: %s" % (
            self.case.name, self.address, self.port, log[-400:]))

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.close()


# ---------------------------------------------------------------------------------------------------------------
# netvigil.

def netvigil(case, context, profile="webpki"):
    arguments = [context["netvigil"], "trust", "evaluate", "--chain", case.path("chain.pem"), "--ca",
                 case.path("anchors.pem"), "--no-system-roots", "--host", case.host, "--json", "--validation", profile]
    if case.at:
        arguments += ["--at", case.at]
    result = run(arguments, timeout=60)
    if result.returncode not in (0, 1):
        raise OracleError("netvigil exit %d: %s" % (result.returncode, (result.stderr or result.stdout).strip()[-300:]))
    try:
        report = json.loads(result.stdout)
    except ValueError:
        raise OracleError("netvigil printed no JSON: %s" % result.stdout[:200])
    trusted = report.get("trusted")
    if trusted is not (result.returncode == 0):
        raise OracleError("netvigil exit %d but \"trusted\": %r" % (result.returncode, trusted))
    codes = []
    for finding in report.get("findings") or []:
        code = finding.get("code") or finding.get("kind") or finding.get("id") if isinstance(finding, dict) else finding
        if code and code not in codes:
            codes.append(str(code))
    verdict = report.get("verdict")
    if isinstance(verdict, dict):
        verdict = verdict.get("kind") or verdict.get("code") or json.dumps(verdict)
    reason = report.get("reason") or report.get("message") or ""
    if isinstance(reason, dict):
        reason = reason.get("message") or json.dumps(reason)
    return ("accept" if trusted else "refuse"), verdict, reason, codes


# ---------------------------------------------------------------------------------------------------------------

def judge(case, context):
    result = {"case": case, "verdicts": {}, "reasons": {}, "errors": []}
    for name, oracle in [("openssl", oracle_openssl), ("go", oracle_go), ("pyca", oracle_pyca)]:
        try:
            result["verdicts"][name], result["reasons"][name] = oracle(case, context)
        except OracleError as error:
            result["errors"].append("%s: %s" % (name, error))
    server = None
    try:
        server = Server(case, context["ports"])
        server.wait_listening()
        local = dict(context, port=server.port)
        for name, oracle in [("gnutls", oracle_gnutls), ("nss", oracle_nss)]:
            try:
                result["verdicts"][name], result["reasons"][name] = oracle(case, local)
            except OracleError as error:
                result["errors"].append("%s: %s" % (name, error))
    except OracleError as error:
        result["errors"].append("gnutls, nss: %s" % error)
    finally:
        if server:
            server.stop()
    try:
        verdict, code, reason, codes = netvigil(case, context)
        result.update(netvigil=verdict, netvigil_verdict=code, netvigil_reason=reason, netvigil_codes=codes)
    except OracleError as error:
        result["errors"].append("netvigil: %s" % error)
        result.update(netvigil="error", netvigil_verdict="", netvigil_reason=str(error), netvigil_codes=[])
    try:
        result["rfc5280"] = netvigil(case, context, "rfc5280")[0]
    except OracleError as error:
        result["errors"].append("netvigil --validation rfc5280: %s" % error)
        result["rfc5280"] = "error"
    return result


def decide(result, splits, rfc5280_differences):
    """Fills majority, outcome ("pass"/"FAIL") and why. Also: `--validation rfc5280` must give `openssl verify`'s
    verdict, except for the cases in rfc5280-differences.json."""
    verdicts = result["verdicts"]
    accepts = sum(1 for v in verdicts.values() if v == "accept")
    refuses = sum(1 for v in verdicts.values() if v == "refuse")
    result["majority"] = "accept" if accepts > refuses else "refuse"
    result["unanimous"] = accepts == 0 or refuses == 0
    name, mine = result["case"].name, result["netvigil"]
    why = []
    if result["errors"] or len(verdicts) != len(VALIDATORS):
        why.append("could not judge: " + "; ".join(result["errors"]))
    elif mine == "accept" and accepts == 0:
        why.append("netvigil trusts a chain every validator refuses")
    elif name in splits:
        if mine != splits[name]["netvigil"]:
            why.append("decided split says %s, netvigil %ss" % (splits[name]["netvigil"], mine))
    elif mine != result["majority"]:
        why.append("netvigil %ss, the validators' majority %ss (%d-%d)" % (mine, result["majority"],
                                                                          max(accepts, refuses),
                                                                          min(accepts, refuses)))
    openssl = verdicts.get("openssl")
    if openssl and result.get("rfc5280") != openssl and name not in rfc5280_differences:
        why.append("--validation rfc5280 %ss, openssl verify %ss" % (result.get("rfc5280"), openssl))
    elif name in rfc5280_differences and result.get("rfc5280") == openssl:
        why.append("rfc5280-differences.json lists it, but --validation rfc5280 and openssl verify agree")
    result["split"] = name in splits
    result["outcome"] = "FAIL" if why else "pass"
    result["why"] = "; ".join(why)
    return result


def load_splits(path):
    if not path or not os.path.exists(path):
        if path:
            raise SystemExit("run.py: %s does not exist" % path)
        return {}
    with open(path) as f:
        splits = json.load(f)
    if not isinstance(splits, dict):
        raise SystemExit("run.py: %s: expected an object of case names" % path)
    for name, entry in splits.items():
        if not isinstance(entry, dict) or entry.get("netvigil") not in ("accept", "refuse") \
                or not isinstance(entry.get("reason"), str) or not entry["reason"].strip():
            raise SystemExit('run.py: %s: %s needs {"netvigil": "accept"|"refuse", "reason": "..."}' % (path, name))
    return splits


def table(results):
    short = {"accept": "accept", "refuse": "refuse", None: "-", "error": "ERROR"}
    header = ["case", "tool", *VALIDATORS, "majority", "netvigil", "rfc5280", "result", "netvigil verdict / findings"]
    rows = []
    for r in results:
        mark = r["outcome"] + (" (split)" if r["split"] else "")
        if not r["unanimous"]:
            mark += " *"
        detail = r["netvigil_verdict"] or ""
        if r["netvigil_codes"]:
            detail += " [" + ",".join(r["netvigil_codes"]) + "]"
        rows.append([r["case"].name, r["case"].tool.split(" ")[0], *[short[r["verdicts"].get(v)] for v in VALIDATORS],
                     r["majority"], short.get(r["netvigil"], r["netvigil"]), short.get(r.get("rfc5280"), "-"), mark, detail])
    widths = [max(len(str(row[i])) for row in rows + [header]) for i in range(len(header) - 1)]
    lines = []
    for row in [header] + rows:
        lines.append("  ".join(str(cell).ljust(widths[i]) for i, cell in enumerate(row[:-1])) + "  " + row[-1])
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--netvigil", required=True, help="the netvigil binary")
    parser.add_argument("--cases", help="make the cases here (kept) instead of in a temporary directory")
    parser.add_argument("--splits", default=os.path.join(HERE, "splits.json"), help="decided splits (JSON)")
    parser.add_argument("--only", action="append", help="judge only this case (repeatable)")
    parser.add_argument("--jobs", type=int, default=max(2, min(4, (os.cpu_count() or 2) * 2)))
    parser.add_argument("--verbose", action="store_true", help="print every validator's reason for every case")
    args = parser.parse_args()

    require_cryptography()
    require_tools()
    if not os.access(args.netvigil, os.X_OK):
        raise SystemExit("run.py: --netvigil %s is not an executable file" % args.netvigil)
    splits = load_splits(args.splits)
    with open(os.path.join(HERE, "rfc5280-differences.json")) as f:
        rfc5280_differences = json.load(f)

    import generate
    started = time.monotonic()
    temporary = None if args.cases else tempfile.mkdtemp(prefix="netvigil-trustdiff-")
    outdir = os.path.abspath(args.cases or temporary)
    try:
        cache = os.path.join(outdir, ".bin")
        os.makedirs(cache, exist_ok=True)
        try:
            names = generate.generate(outdir, args.only, cache)
            go_verify = os.path.join(cache, "verify")
            if not os.path.exists(go_verify) or os.path.getmtime(go_verify) < os.path.getmtime(
                    os.path.join(HERE, "verify.go")):
                generate.run(["go", "build", "-o", go_verify, os.path.join(HERE, "verify.go")], cwd=cache,
                             env=generate.go_env(cache))
        except generate.GenerationError as error:
            raise SystemExit("run.py: generating the cases failed: %s" % error)
        if not args.only:
            stale = sorted(set(splits) - set(names))
            stale += sorted(set(rfc5280_differences) - set(names))
            if stale:
                raise SystemExit("run.py: %s or rfc5280-differences.json lists cases that do not exist: %s" % (
                    args.splits, ", ".join(stale)))
        generated = time.monotonic()
        context = {"netvigil": os.path.abspath(args.netvigil), "go_verify": go_verify, "ports": Ports(),
                   "faketime": faketime_library()}
        cases = [Case(os.path.join(outdir, name)) for name in names]
        with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
            results = list(pool.map(lambda c: decide(judge(c, context), splits, rfc5280_differences), cases))
    finally:
        if temporary:
            shutil.rmtree(temporary, ignore_errors=True)

    print(table(results))
    print("(* the validators split on this case)")
    print()
    interesting = results if args.verbose else [r for r in results if r["outcome"] == "FAIL" or not r["unanimous"]]
    for r in interesting:
        print("%s — %s (host %s%s)" % (r["case"].name, r["case"].description, r["case"].host,
                                       ", at " + r["case"].at if r["case"].at else ""))
        for v in VALIDATORS:
            print("    %-8s %-6s %s" % (v, r["verdicts"].get(v, "-"), r["reasons"].get(v, "")))
        print("    %-8s %-6s %s: %s" % ("netvigil", r["netvigil"], r["netvigil_verdict"], r["netvigil_reason"]))
        if r["why"]:
            print("    => FAIL: " + r["why"])
    if args.cases:
        with open(os.path.join(outdir, "results.json"), "w") as f:
            json.dump([{"case": r["case"].name, "tool": r["case"].tool, "host": r["case"].host, "at": r["case"].at,
                        "validators": r["verdicts"], "reasons": r["reasons"], "majority": r["majority"],
                        "netvigil": r["netvigil"], "netvigil_verdict": r["netvigil_verdict"],
                        "netvigil_reason": r["netvigil_reason"], "netvigil_findings": r["netvigil_codes"],
                        "split": r["split"], "outcome": r["outcome"], "why": r["why"]} for r in results], f, indent=2)
    judged = sum(1 for r in results if not r["errors"] and len(r["verdicts"]) == len(VALIDATORS))
    failed = sum(1 for r in results if r["outcome"] == "FAIL")
    print()
    print("validators split on %d of %d cases; generated in %.0f s, judged in %.0f s" % (
        sum(1 for r in results if not r["unanimous"]), len(results), generated - started,
        time.monotonic() - generated))
    too_few = not args.only and judged < MINIMUM_CASES
    if too_few:
        print("only %d cases were judged by every validator (at least %d needed)" % (judged, MINIMUM_CASES))
    print("%d passed, %d failed" % (len(results) - failed, failed))
    return 1 if failed or too_few else 0


if __name__ == "__main__":
    sys.exit(main())
